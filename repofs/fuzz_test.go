package repofs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzConfinement: whatever path the agent gives, an accepted read or
// write stays inside the repository and out of .git, symlinks included.
func FuzzConfinement(f *testing.F) {
	for _, s := range []string{"a.txt", "../outside.txt", "link-out", "link-out/x", "gitdir/config", "sub/../a.txt",
		"/etc/passwd", ".git/hooks/pre-commit", "sub/link-up/outside.txt", "new/dir/file", "link-in", "././/a.txt", "sub/.."} {
		f.Add(s)
	}
	base := f.TempDir()
	dir := filepath.Join(base, "repo")
	outside := filepath.Join(base, "outside.txt")
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(outside, []byte("outside"), 0o644)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("git config"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link-out"))
	os.Symlink(base, filepath.Join(dir, "sub", "link-up"))
	os.Symlink(".git", filepath.Join(dir, "gitdir"))
	os.Symlink("a.txt", filepath.Join(dir, "link-in"))
	r, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)

	f.Fuzz(func(t *testing.T, p string) {
		if _, err := r.ReadFile(p, 0, 0); err == nil {
			mustBeInside(t, real, p)
		}
		if err := r.WriteFile(p, "fuzz"); err == nil {
			mustBeInside(t, real, p)
		}
		if b, _ := os.ReadFile(outside); string(b) != "outside" {
			t.Fatalf("%q changed the file outside", p)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(b) != "git config" {
			t.Fatalf("%q changed .git/config", p)
		}
	})
}

func mustBeInside(t *testing.T, root, p string) {
	t.Helper()
	c, err := Clean(p)
	if err != nil {
		t.Fatalf("%q was accepted but Clean refuses it: %v", p, err)
	}
	resolved, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(c)))
	if err != nil {
		return // written through a path that no longer resolves; the checks on the files outside still hold
	}
	rel, err := filepath.Rel(root, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || rel == ".git" || strings.HasPrefix(rel, ".git/") {
		t.Fatalf("%q resolves to %s, outside the repository or in .git", p, resolved)
	}
}
