package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"
)

// prArg is a pull request as gh pr view takes it: a number, #number, a URL
// or a head branch. The zero value is the open PR of the checked-out branch.
type prArg struct {
	Number int
	Branch string                // the PR whose head is this branch
	Repo   repository.Repository // a URL's repository; zero otherwise
}

// prArgUsage is what a bad PR argument is told.
const prArgUsage = "give its number (24 or #24), URL (https://github.com/OWNER/REPO/pull/24) or head branch"

// parsePRArg reads s; "" is the zero prArg.
func parsePRArg(s string) (prArg, error) {
	switch {
	case s == "":
		return prArg{}, nil
	case strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://"):
		r, n, ok := parsePRURL(s)
		if !ok {
			return prArg{}, fmt.Errorf("invalid pull request %q: not a pull request URL; %s", s, prArgUsage)
		}
		return prArg{Number: n, Repo: r}, nil
	}
	digits := strings.TrimPrefix(s, "#")
	if n, err := strconv.Atoi(digits); err == nil {
		if n <= 0 {
			return prArg{}, fmt.Errorf("invalid pull request %q: %s", s, prArgUsage)
		}
		return prArg{Number: n}, nil
	}
	if strings.HasPrefix(s, "#") || strings.HasPrefix(s, "-") || strings.ContainsAny(s, " \t\n~^:?*[\\") || strings.Contains(s, "..") {
		return prArg{}, fmt.Errorf("invalid pull request %q: %s", s, prArgUsage)
	}
	return prArg{Branch: s}, nil
}

// prArgument reads a verb's PR: its optional positional argument or --pr
// (an alias), not both, and reconciles a URL's repository with -R as gh
// does: a URL selects its repository, and -R naming another is an error.
func (f *flagSet) prArgument(prFlag, repoFlag string) (prArg, repository.Repository, error) {
	if f.NArg() > 1 {
		return prArg{}, repository.Repository{}, f.usageErr("unexpected argument %q: give one pull request", f.Arg(1))
	}
	s := f.Arg(0)
	if prFlag != "" {
		if s != "" {
			return prArg{}, repository.Repository{}, f.usageErr("give the pull request once: as an argument or with --pr, not both")
		}
		s = prFlag
	}
	return f.prFrom(s, repoFlag)
}

// prFrom reads the PR s and reconciles a URL's repository with -R.
func (f *flagSet) prFrom(s, repoFlag string) (prArg, repository.Repository, error) {
	pr, err := parsePRArg(s)
	if err != nil {
		return prArg{}, repository.Repository{}, f.usageErr("%s", err)
	}
	r, err := f.parseRepoFlag(repoFlag)
	if err != nil {
		return prArg{}, repository.Repository{}, err
	}
	if pr.Repo.Name != "" {
		if repoFlag != "" && !sameRepo(r, pr.Repo) {
			return prArg{}, repository.Repository{}, f.usageErr("the URL names %s but --repo names %s: drop one", repoString(pr.Repo), repoString(r))
		}
		r = pr.Repo
	}
	return pr, r, nil
}

func sameRepo(a, b repository.Repository) bool {
	return strings.EqualFold(a.Host, b.Host) && strings.EqualFold(a.Owner, b.Owner) && strings.EqualFold(a.Name, b.Name)
}

func repoString(r repository.Repository) string {
	return r.Host + "/" + r.Owner + "/" + r.Name
}
