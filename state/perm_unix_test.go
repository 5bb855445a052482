//go:build unix

package state

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestFileAndDirectoryArePrivate(t *testing.T) {
	old := syscall.Umask(0) // even a permissive umask must not widen them
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "deep", "gh-ocdx")
	s := New(filepath.Join(dir, "state.db"), nil)
	a, err := s.Begin(prKey, "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.End(OutcomeConverged, ""); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Dir(dir): 0o700, s.Path(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %o, want %o", path, got, want)
		}
	}
}
