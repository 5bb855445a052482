package testkit

import (
	"bytes"
	"os/exec"
	"testing"
)

// TestFakeReadsFilesAsGitShowDoes: the fake reads a file at a revision
// through the remote's cat-file; what it answers must be what git show
// answers, for files, directories, missing paths and revisions, and for a
// commit pushed after the cat-file started.
func TestFakeReadsFilesAsGitShowDoes(t *testing.T) {
	r := NewRepo(t, "main", "feature/show", map[string]string{"README.md": "# r\n", "dir/a b.go": "package dir\n", "empty": ""},
		map[string]string{"dir/a b.go": "package dir\n\nvar A = 1\n"})
	g := NewGitHub(t)
	head := r.RemoteOID(t, r.Head)
	check := func(rev, path string) {
		t.Helper()
		want, err := exec.Command("git", "--git-dir", r.Remote, "show", rev+":"+path).Output()
		got, ok := g.gitAt(r.Remote, "show", rev, false, rev+":"+path)
		if ok != (err == nil) || ok && !bytes.Equal(got, want) {
			t.Errorf("%s:%q: the fake read %q (%v), git show %q (%v)", rev, path, got, ok, want, err)
		}
	}
	for _, rev := range []string{head, "main", "feature/show", "0123456789012345678901234567890123456789"} {
		for _, path := range []string{"README.md", "dir/a b.go", "empty", "dir", "", "missing", "dir/missing", "a\nb"} {
			check(rev, path)
		}
	}
	WriteFiles(t, r.Clone, map[string]string{"later.txt": "later\n"})
	Git(t, r.Clone, "add", "-A")
	Git(t, r.Clone, "commit", "--quiet", "-m", "later")
	Git(t, r.Clone, "push", "--quiet", "origin", r.Head)
	check(r.RemoteOID(t, r.Head), "later.txt")
	check("feature/show", "later.txt")
	if g.cats[r.Remote] == nil || g.cats[r.Remote].broken {
		t.Errorf("the fake read without its cat-file")
	}
}
