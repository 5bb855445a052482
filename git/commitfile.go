package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
)

// CommitFile makes a commit on parent that writes content to path, and
// nothing else, without touching the work tree, the index or any branch:
// the tree is written through an index of its own. It returns the commit.
func (r *Repo) CommitFile(ctx context.Context, parent, path string, content []byte, message string) (string, error) {
	if !isSHA(parent) {
		return "", fmt.Errorf("committing %s: %q is not a commit id", path, parent)
	}
	if strings.HasPrefix(path, "/") || strings.Contains(path, "..") || strings.ContainsAny(path, "\x00\n") {
		return "", fmt.Errorf("committing %q: not a path inside the repository", path)
	}
	tmp, err := os.CreateTemp("", "gh-ocdx-index-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	os.Remove(tmp.Name()) // git writes a new index there
	defer os.Remove(tmp.Name())
	git := func(stdin []byte, args ...string) (string, error) {
		var out, errOut bytes.Buffer
		c := r.Command(ctx, args...)
		c.Env = append(c.Env, "GIT_INDEX_FILE="+tmp.Name())
		c.Stdin, c.Stdout, c.Stderr = bytes.NewReader(stdin), &out, &errOut
		if err := c.Run(); err != nil {
			return "", fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(errOut.String()))
		}
		return strings.TrimSpace(out.String()), nil
	}
	if _, err := git(nil, "read-tree", parent); err != nil {
		return "", err
	}
	blob, err := git(content, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	if _, err := git(nil, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+path); err != nil {
		return "", err
	}
	tree, err := git(nil, "write-tree")
	if err != nil {
		return "", err
	}
	return git([]byte(message), "commit-tree", tree, "-p", parent, "-F", "-")
}

// PushBranch pushes commit to a new branch on remote, and only a new
// one: the lease with an empty value (--force-with-lease=<ref>:) has the
// remote refuse the push when the branch exists, whatever it holds, so
// nothing is overwritten or moved (gh-ocdx never force-pushes).
func (r *Repo) PushBranch(ctx context.Context, remote, branch, commit string) error {
	if strings.HasPrefix(remote, "-") || strings.HasPrefix(branch, "-") || strings.ContainsAny(branch, ": +") || !isSHA(commit) {
		return fmt.Errorf("refusing to push %q to remote %q branch %q: not a plain name", commit, remote, branch)
	}
	// Pushing the very commit a branch holds is no update, which the lease
	// does not refuse: a branch that exists is asked about first.
	if out, err := command(ctx, r.Dir, true, "ls-remote", "--heads", remote, "refs/heads/"+branch).Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
		return fmt.Errorf("the branch %s exists on %s already: nothing was pushed", branch, remote)
	}
	var errOut bytes.Buffer
	c := command(ctx, r.Dir, true, "push", "--no-verify", "--recurse-submodules=no", "--porcelain",
		"--force-with-lease=refs/heads/"+branch+":", remote, commit+":refs/heads/"+branch)
	c.Stderr = &errOut
	if out, err := c.Output(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &PushError{Remote: remote, Branch: branch, Stderr: strings.TrimSpace(errOut.String() + "\n" + string(out))}
	}
	return nil
}

// FetchBranch fetches branch from remote: its commits, no tag, no
// submodule, no local branch moved.
func (r *Repo) FetchBranch(ctx context.Context, remote, branch string) error {
	if strings.HasPrefix(remote, "-") || strings.HasPrefix(branch, "-") || strings.ContainsAny(branch, ": +") {
		return fmt.Errorf("refusing to fetch remote %q branch %q: not a plain name", remote, branch)
	}
	var errOut bytes.Buffer
	c := command(ctx, r.Dir, true, "fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", remote, "refs/heads/"+branch)
	c.Stderr = &errOut
	if err := c.Run(); err != nil {
		return fmt.Errorf("fetching %s from %s: %s", branch, remote, strings.TrimSpace(errOut.String()))
	}
	return nil
}
