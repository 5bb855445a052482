package state

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"

	bolt "go.etcd.io/bbolt"
)

// realFile writes a state file with a few PRs and runs (several pages) and
// returns its bytes.
func realFile(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	s := New(path, nil)
	for i := 1; i <= 6; i++ {
		a := must(s.Begin(NewKey("github.com", "o", "r", i), "review-loop"))
		if err := fullRound(a, 1); err != nil {
			t.Fatal(err)
		}
		if err := a.Complete(1, "", func(r *Round) { r.Findings = []finding.Finding{{ID: strings.Repeat("x", 3000)}} }); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := a.End(OutcomeBlocked, "max rounds"); err != nil {
				t.Fatal(err)
			}
		} else if err := a.Release(); err != nil {
			t.Fatal(err)
		}
	}
	return must(os.ReadFile(path))
}

// exercise runs every kind of operation on a store at path and fails the
// test if one panics (through the test binary crashing) or returns an error
// that does not name the file.
func exercise(t *testing.T, path string, warn *bytes.Buffer) {
	t.Helper()
	s := New(path, &Options{Warn: warn})
	key := NewKey("github.com", "o", "r", 3)
	check := func(what string, err error) {
		if err != nil && !errors.Is(err, ErrNotFound) && !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v (does not name %s)", what, err, path)
		}
	}
	_, err := s.List()
	check("List", err)
	_, err = s.PR(key)
	check("PR", err)
	check("Clear", s.Clear(NewKey("github.com", "o", "r", 5)))
	a, err := s.Begin(key, "review-loop")
	check("Begin", err)
	if err == nil {
		check("StartRound", fullRound(a, 2))
		check("End", a.End(OutcomeFailed, "test"))
	}
}

// corrupted lists the files moved aside next to path.
func corrupted(t *testing.T, path string) []string {
	t.Helper()
	m, err := filepath.Glob(path + ".corrupt-*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDamagedFilesAreMovedAsideAndAFreshOneStarted(t *testing.T) {
	good := realFile(t)
	otherBolt := filepath.Join(t.TempDir(), "other.db")
	withDB(t, otherBolt, func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("widgets")); return err })
	garbage := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	cases := map[string][]byte{
		"text":              []byte("my notes, not a database\n"),
		"garbage":           garbage,
		"another bbolt db":  must(os.ReadFile(otherBolt)),
		"truncated to 100":  good[:100],
		"truncated half":    good[:len(good)/2],
		"meta pages zeroed": append(make([]byte, 8192), good[8192:]...),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			var warn bytes.Buffer
			exercise(t, path, &warn)
			moved := corrupted(t, path)
			if len(moved) != 1 {
				t.Fatalf("moved aside: %v, want one file; warnings:\n%s", moved, warn.String())
			}
			if got := must(os.ReadFile(moved[0])); !bytes.Equal(got, content) {
				t.Error("the file moved aside is not the damaged file as it was")
			}
			wantIn(t, warn.String(), "the state file "+path+" was unreadable", "moved to "+moved[0], "a new one was started")
			if strings.Count(warn.String(), "moved to") != 1 {
				t.Errorf("warned more than once:\n%s", warn.String())
			}
			// The fresh file works.
			if sums, err := New(path, nil).List(); err != nil || len(sums) != 1 {
				t.Errorf("fresh file: %v, %v", sums, err)
			}
		})
	}
}

// TestFlippedBytesNeverPanic flips bytes in every page of a real file: each
// operation either works, fails naming the file, or moves the file aside.
func TestFlippedBytesNeverPanic(t *testing.T) {
	good := realFile(t)
	rng := rand.New(rand.NewPCG(3, 4))
	const page = 4096
	moved := 0
	for off := 0; off < len(good); off += page {
		for _, at := range []int{0, 10, 16, 24, 64, rng.IntN(page)} {
			content := bytes.Clone(good)
			if off+at >= len(content) {
				continue
			}
			content[off+at] ^= byte(1 + rng.IntN(255))
			path := filepath.Join(t.TempDir(), "state.db")
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			var warn bytes.Buffer
			exercise(t, path, &warn)
			if m := corrupted(t, path); len(m) > 0 {
				moved++
				if !strings.Contains(warn.String(), m[0]) {
					t.Errorf("page %d byte %d: moved to %s without saying so", off/page, at, m[0])
				}
			}
		}
	}
	t.Logf("%d of the flipped files were moved aside", moved)
}

func FuzzDamagedFile(f *testing.F) {
	f.Add([]byte("not a database"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "state.db")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		exercise(t, path, &bytes.Buffer{})
	})
}

func wantIn(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("lacks %q:\n%s", sub, s)
		}
	}
}

// Several users of one damaged file move it aside once: the others find
// the fresh file, which none of them moves.
func TestDamagedFileIsMovedAsideOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(path, bytes.Repeat([]byte("garbage!"), 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			s := New(path, &Options{Warn: io.Discard})
			if i%2 == 0 {
				_, err := s.List()
				errs <- err
				return
			}
			a, err := s.Begin(NewKey("github.com", "o", "r", i), "fix")
			if err == nil {
				err = a.End(OutcomeBlocked, "test")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if m := corrupted(t, path); len(m) != 1 {
		t.Errorf("moved aside: %v, want one file", m)
	}
	if sums := must(New(path, nil).List()); len(sums) != 4 {
		t.Errorf("%d PRs recorded in the fresh file, want 4", len(sums))
	}
}
