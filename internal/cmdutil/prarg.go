package cmdutil

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"
)

// PRArg is a pull request as gh pr view takes it: a number, #number, a URL
// or a head branch. The zero value is the open PR of the checked-out branch.
type PRArg struct {
	Number int
	Branch string                // the PR whose head is this branch
	Repo   repository.Repository // a URL's or -R's repository; zero: GH_REPO's, else the remotes'
}

// prArgUsage is what a bad PR argument is told.
const prArgUsage = "give its number (24 or #24), URL (https://github.com/OWNER/REPO/pull/24) or head branch"

// ParsePRArg reads s; "" is the zero PRArg.
func ParsePRArg(s string) (PRArg, error) {
	switch {
	case s == "":
		return PRArg{}, nil
	case strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://"):
		r, n, ok := parsePRURL(s)
		if !ok {
			return PRArg{}, fmt.Errorf("invalid pull request %q: not a pull request URL; %s", s, prArgUsage)
		}
		return PRArg{Number: n, Repo: r}, nil
	}
	digits := strings.TrimPrefix(s, "#")
	if n, err := strconv.Atoi(digits); err == nil {
		if n <= 0 {
			return PRArg{}, fmt.Errorf("invalid pull request %q: %s", s, prArgUsage)
		}
		return PRArg{Number: n}, nil
	}
	if strings.HasPrefix(s, "#") || strings.HasPrefix(s, "-") || strings.ContainsAny(s, " \t\n~^:?*[\\") || strings.Contains(s, "..") {
		return PRArg{}, fmt.Errorf("invalid pull request %q: %s", s, prArgUsage)
	}
	return PRArg{Branch: s}, nil
}

// PRArgument reads a verb's PR: its optional Positional argument or --pr
// (an alias), not both, and reconciles a URL's repository with -R as gh
// does: a URL selects its repository, and -R naming another is an error.
func (f *FlagSet) PRArgument(prFlag, repoFlag string) (PRArg, repository.Repository, error) {
	if f.NArg() > 1 {
		return PRArg{}, repository.Repository{}, f.UsageErr("unexpected argument %q: give one pull request", f.Arg(1))
	}
	s := f.Arg(0)
	if prFlag != "" {
		if s != "" {
			return PRArg{}, repository.Repository{}, f.UsageErr("give the pull request once: as an argument or with --pr, not both")
		}
		s = prFlag
	}
	return f.PRFrom(s, repoFlag)
}

// PRFrom reads the PR s and reconciles a URL's repository with -R.
func (f *FlagSet) PRFrom(s, repoFlag string) (PRArg, repository.Repository, error) {
	pr, err := ParsePRArg(s)
	if err != nil {
		return PRArg{}, repository.Repository{}, f.UsageErr("%s", err)
	}
	r, err := f.ParseRepoFlag(repoFlag)
	if err != nil {
		return PRArg{}, repository.Repository{}, err
	}
	if pr.Repo.Name != "" {
		if repoFlag != "" && !sameRepo(r, pr.Repo) {
			return PRArg{}, repository.Repository{}, f.UsageErr("the URL names %s but --repo names %s: drop one", RepoString(pr.Repo), RepoString(r))
		}
		r = pr.Repo
	}
	return pr, r, nil
}

func sameRepo(a, b repository.Repository) bool {
	return strings.EqualFold(a.Host, b.Host) && strings.EqualFold(a.Owner, b.Owner) && strings.EqualFold(a.Name, b.Name)
}

// RepoString is r as HOST/OWNER/NAME, as -R takes it.
func RepoString(r repository.Repository) string {
	return r.Host + "/" + r.Owner + "/" + r.Name
}

// parsePRURL reads https://HOST/OWNER/REPO/pull/N (anything after N is ignored).
func parsePRURL(s string) (repository.Repository, int, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return repository.Repository{}, 0, false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || parts[2] != "pull" {
		return repository.Repository{}, 0, false
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 {
		return repository.Repository{}, 0, false
	}
	return repository.Repository{Host: u.Host, Owner: parts[0], Name: parts[1]}, n, true
}
