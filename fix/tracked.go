package fix

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/repofs"
)

// trackedFiles is what the fix agent's read tools see: the work tree (its
// own edits included), but only the paths git tracks plus those the agent
// wrote in this fix. Ignored and untracked files (a local .env, .npmrc)
// belong to the user, not to the PR: they are not listed, not searched, and
// not read, through a symlink either.
type trackedFiles struct {
	files *repofs.Repo
	real  string // the checkout's root, symlinks resolved

	mu    sync.Mutex
	paths map[string]bool
}

// newTrackedFiles reads the tracked paths (git ls-files) of the checkout
// files is open on; written are paths the agent wrote before (a resumed
// fix's WIP).
func newTrackedFiles(ctx context.Context, repo *git.Repo, files *repofs.Repo, written []string) (*trackedFiles, error) {
	real, err := filepath.EvalSymlinks(files.Dir())
	if err != nil {
		return nil, err
	}
	var out strings.Builder
	if err := repo.RunIO(ctx, nil, &out, "ls-files", "-z", "--full-name"); err != nil {
		return nil, fmt.Errorf("listing the tracked files: %w", err)
	}
	t := &trackedFiles{files: files, real: real, paths: map[string]bool{}}
	for _, p := range strings.Split(out.String(), "\x00") {
		if p != "" {
			t.paths[p] = true
		}
	}
	for _, p := range written {
		t.add(p)
	}
	return t, nil
}

// add makes a path the agent wrote readable.
func (t *trackedFiles) add(p string) {
	c, err := repofs.Clean(p)
	if err != nil || c == "." {
		return
	}
	t.mu.Lock()
	t.paths[c] = true
	t.mu.Unlock()
}

func (t *trackedFiles) has(c string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.paths[c]
}

// refused is the answer for a path that is neither tracked nor written by
// the agent; whether it exists is not said.
func refused(p string) error {
	return fmt.Errorf("%s is not tracked in this repository and was not written by you: only tracked files and files you wrote are readable (list_files shows them)", p)
}

// ReadFile reads a tracked or written file; a symlink is read only when
// what it leads to is tracked or written too.
func (t *trackedFiles) ReadFile(p string, start, end int) (string, error) {
	c, err := repofs.Clean(p)
	if err != nil {
		return "", err
	}
	if !t.has(c) {
		return "", refused(p)
	}
	if real, err := filepath.EvalSymlinks(filepath.Join(t.real, filepath.FromSlash(c))); err == nil {
		rel, err := filepath.Rel(t.real, real)
		if err != nil || !t.has(filepath.ToSlash(rel)) {
			return "", fmt.Errorf("%s is a symbolic link to a file that is not tracked: only tracked files and files you wrote are readable", p)
		}
	}
	return t.files.ReadFile(c, start, end)
}

// MayChange decides whether write_file or edit_file may act on p: a
// tracked path, one the agent wrote, or one that does not exist yet. An
// untracked file that exists (a local .env) is the user's, not the PR's:
// overwriting it, or probing its content with edit_file, is refused, and so
// is a symlink leading to one.
func (t *trackedFiles) MayChange(p string) error {
	c, err := repofs.Clean(p)
	if err != nil {
		return err
	}
	abs := filepath.Join(t.real, filepath.FromSlash(c))
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if !t.has(c) {
		return fmt.Errorf("%s is not tracked in this repository and was not written by you: only tracked files and files you wrote may be changed; write new files under new names", p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		if rel, err := filepath.Rel(t.real, real); err != nil || !t.has(filepath.ToSlash(rel)) {
			return fmt.Errorf("%s is a symbolic link to a file that is not tracked: only tracked files and files you wrote may be changed", p)
		}
	}
	return nil
}

// under lists the tracked or written paths at or below dir that exist in
// the work tree, sorted.
func (t *trackedFiles) under(dir string) ([]string, error) {
	c, err := repofs.Clean(dir)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	var out []string
	for p := range t.paths {
		if c == "." || p == c || strings.HasPrefix(p, c+"/") {
			out = append(out, p)
		}
	}
	t.mu.Unlock()
	sort.Strings(out)
	kept := out[:0]
	for _, p := range out {
		if _, err := os.Lstat(filepath.Join(t.real, filepath.FromSlash(p))); err == nil {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 && c != "." {
		return nil, refused(dir)
	}
	return kept, nil
}

// List lists the tracked or written files below dir, at most
// repofs.MaxListItems.
func (t *trackedFiles) List(dir string) ([]string, bool, error) {
	paths, err := t.under(dir)
	if err != nil {
		return nil, false, err
	}
	if len(paths) > repofs.MaxListItems {
		return paths[:repofs.MaxListItems], true, nil
	}
	return paths, false, nil
}

// Search searches the tracked or written text files below dir.
func (t *trackedFiles) Search(pattern, dir string) ([]repofs.Match, bool, error) {
	paths, err := t.under(dir)
	if err != nil {
		return nil, false, err
	}
	return t.files.SearchFiles(pattern, paths)
}
