package cmd

import (
	"fmt"

	"github.com/cli/go-gh/v2/pkg/repository"
)

// resolveRepo picks the repository as gh does: -R/--repo, else GH_REPO, else
// the git remotes of the current directory.
func resolveRepo(flag string) (repository.Repository, error) {
	if flag != "" {
		r, err := repository.Parse(flag)
		if err != nil {
			return r, &UsageError{Msg: fmt.Sprintf("invalid value for --repo: %v", err)}
		}
		return r, nil
	}
	r, err := repository.Current()
	if err != nil {
		return r, fmt.Errorf("could not determine the repository (%v): run inside a clone of a GitHub repository, or pass -R OWNER/REPO or set GH_REPO", err)
	}
	return r, nil
}
