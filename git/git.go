// Package git runs the few git commands gh-ocdx needs on the user's checkout:
// preflight questions (work tree? clean? which branch?), commit checks, and
// the one push, which is never a force push.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// ErrNotRepo: the directory is not inside a git work tree.
var ErrNotRepo = errors.New("not a git work tree")

// Repo is a checkout.
type Repo struct {
	Dir string
}

// Open finds the work tree containing dir.
func Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := run(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is %w: run gh ocdx inside a clone of the repository", dir, ErrNotRepo)
	}
	return &Repo{Dir: out}, nil
}

// Run runs git with args in the work tree and returns its trimmed stdout.
func (r *Repo) Run(ctx context.Context, args ...string) (string, error) {
	return run(ctx, r.Dir, args...)
}

func run(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := runRaw(ctx, dir, args...)
	return strings.TrimSpace(out), err
}

// runRaw is run without trimming, for NUL-separated output where a space
// may belong to a file name.
func runRaw(ctx context.Context, dir string, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	c := exec.CommandContext(ctx, "git", args...)
	c.Dir, c.Stdout, c.Stderr = dir, &out, &errOut
	if err := c.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.String(), nil
}

// Dirty lists the paths with uncommitted changes (staged, unstaged or
// untracked, not ignored); empty means clean. Names are read NUL-separated,
// so none is quoted or mangled.
func (r *Repo) Dirty(ctx context.Context) ([]string, error) {
	var paths []string
	for _, args := range [][]string{{"diff", "--name-only", "-z", "HEAD"}, {"ls-files", "-z", "--others", "--exclude-standard"}} {
		out, err := runRaw(ctx, r.Dir, args...)
		if err != nil {
			return nil, err
		}
		for _, p := range strings.Split(out, "\x00") {
			if p != "" && !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	return paths, nil
}

// Branch is the checked-out branch; "" on a detached HEAD.
func (r *Repo) Branch(ctx context.Context) (string, error) {
	out, err := r.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		if _, herr := r.Run(ctx, "rev-parse", "HEAD"); herr == nil {
			return "", nil
		}
		return "", err
	}
	return out, nil
}

// Head is the commit checked out.
func (r *Repo) Head(ctx context.Context) (string, error) {
	return r.Run(ctx, "rev-parse", "HEAD")
}

// HasCommit reports whether sha names a commit in this repository.
func (r *Repo) HasCommit(ctx context.Context, sha string) bool {
	if sha == "" || strings.HasPrefix(sha, "-") {
		return false
	}
	_, err := r.Run(ctx, "cat-file", "-e", sha+"^{commit}")
	return err == nil
}

// Log is `git log --oneline base..HEAD`, newest first.
func (r *Repo) Log(ctx context.Context, base string) ([]string, error) {
	out, err := r.Run(ctx, "log", "--oneline", "--no-decorate", base+"..HEAD")
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(out, "\n"), nil
}

// Diffstat is `git diff --stat base..HEAD`.
func (r *Repo) Diffstat(ctx context.Context, base string) (string, error) {
	return r.Run(ctx, "diff", "--stat", base+"..HEAD")
}

// PushError is a push the remote refused (non-fast-forward, protected
// branch, …). Stderr is the remote's message.
type PushError struct {
	Remote, Branch, Stderr string
}

func (e *PushError) Error() string {
	return fmt.Sprintf("the push of HEAD to %s/%s was rejected; nothing was forced and your commits are still here (fetch and rebase, or resolve it by hand, then re-run): %s",
		e.Remote, e.Branch, e.Stderr)
}

// Push sends HEAD to branch on remote as a fast-forward. It takes no option:
// gh-ocdx never force-pushes.
func (r *Repo) Push(ctx context.Context, remote, branch string) error {
	if strings.HasPrefix(remote, "-") || strings.HasPrefix(branch, "-") || strings.ContainsAny(branch, ": +") {
		return fmt.Errorf("refusing to push to remote %q branch %q: not a plain name", remote, branch)
	}
	var errOut bytes.Buffer
	// No hook runs: the fix agent may have written one (core.hooksPath can
	// point into the work tree), and a hook would run with the user's
	// credentials.
	c := exec.CommandContext(ctx, "git", "-c", "core.hooksPath="+os.DevNull, "push", "--no-verify", "--porcelain", remote, "HEAD:refs/heads/"+branch)
	c.Dir, c.Stderr = r.Dir, &errOut
	out, err := c.Output()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(errOut.String() + "\n" + string(out))
		return &PushError{Remote: remote, Branch: branch, Stderr: msg}
	}
	return nil
}
