package cmdutil

import (
	"fmt"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/github"
)

// The repository is picked as gh does: -R/--repo, else GH_REPO, else the git
// remotes of the current directory. The flag is checked when flags are
// parsed; the fallback runs git, so verbs call it after the configuration
// is validated.

// ParseRepoFlag reads a -R value ([HOST/]OWNER/REPO); "" gives the zero
// repository, to be filled by CurrentRepo.
// host is the one OWNER/REPO means (Deps.DefaultHost).
func ParseRepoFlag(flag, host string) (repository.Repository, error) {
	if flag == "" {
		return repository.Repository{}, nil
	}
	r, err := repository.ParseWithHost(flag, host)
	if err != nil {
		return r, &UsageError{Msg: fmt.Sprintf("invalid value for --repo: %v", err)}
	}
	return r, nil
}

// CurrentRepo is r when -R named one, else GH_REPO's or the git remotes'.
func CurrentRepo(d *Deps, r repository.Repository) (repository.Repository, error) {
	if r.Name != "" {
		return r, nil
	}
	r, err := d.baseRepo()
	switch {
	case err == nil:
		return r, nil
	case strings.Contains(err.Error(), "not a git repository"):
		return r, fmt.Errorf("could not determine the repository: this directory is not a git clone; run inside a clone of a GitHub repository, or pass -R OWNER/REPO or set GH_REPO")
	}
	return r, fmt.Errorf("could not determine the repository (%v): run inside a clone of a GitHub repository, or pass -R OWNER/REPO or set GH_REPO", err)
}

// RepoClient is the repository a verb works on (CurrentRepo) and a GitHub
// client for its host.
func RepoClient(d *Deps, r repository.Repository) (github.Repo, *github.Client, error) {
	r, err := CurrentRepo(d, r)
	if err != nil {
		return github.Repo{}, nil, err
	}
	repo := github.Repo{Host: r.Host, Owner: r.Owner, Name: r.Name}
	client, err := d.GitHubClient(repo.Host)
	return repo, client, err
}
