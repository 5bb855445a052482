package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/ocdx/gh-ocdx/state"
)

// damagedStateFiles are state files an accident (a disk error, a crash of
// the file system, a stray editor) can leave behind: each is a function
// writing one at path.
var damagedStateFiles = map[string]func(t *testing.T, path string){
	"garbage": func(t *testing.T, path string) {
		writeFile(t, path, bytes.Repeat([]byte("\x13\x37garbage"), 4096))
	},
	"truncated": func(t *testing.T, path string) {
		recordSomething(t, path)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, b[:3*len(b)/8])
	},
	// Flipped bits in the page holding the PR records: bbolt asserts on
	// the page's flags (a panic) instead of returning an error.
	"flipped page": func(t *testing.T, path string) {
		recordSomething(t, path)
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		var root uint64
		var size int
		db.View(func(tx *bolt.Tx) error {
			root, size = uint64(tx.Bucket([]byte("prs")).Root()), tx.DB().Info().PageSize
			return nil
		})
		db.Close()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[int(root)*size+8] ^= 0xff // the page's flags
		writeFile(t, path, b)
	},
}

// recordSomething writes a real state file with a finished run on PR #31.
func recordSomething(t *testing.T, path string) {
	t.Helper()
	s := state.New(path, nil)
	a, err := s.Begin(state.NewKey("127.0.0.1", "owner", "repo", loopPR), "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.StartRound(1, strings.Repeat("a", 40)); err != nil {
		t.Fatal(err)
	}
	if err := a.End(state.OutcomeBlocked, "max rounds"); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedStateFileIsMovedAside: every command that reads or writes the
// state file, `state clear` included, meets a damaged file by naming it,
// moving it aside to state.db.corrupt-<time> (never deleting it), saying
// so, and going on with a fresh file, instead of a panic (exit 2).
func TestDamagedStateFileIsMovedAside(t *testing.T) {
	t.Parallel()
	commands := []struct {
		name string
		args []string
		code int
	}{
		{"state show", []string{"state", "show"}, 0},
		{"state clear", []string{"state", "clear", "--pr", strconv.Itoa(loopPR), "--yes"}, 0}, // nothing recorded any more
		{"review-loop --dry-run", []string{"review-loop", "--dry-run"}, 0},
		{"review-loop", []string{"review-loop", "--yes"}, 0},
	}
	for name, damage := range damagedStateFiles {
		for _, c := range commands {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				lf := newLoop(t, nil)
				lf.approveRound()
				path := filepath.Join(lf.env.Vars["OCDX_STATE_DIR"], "state.db")
				damage(t, path)
				before, _ := os.ReadFile(path)

				res := lf.env.Run(t, c.args...)

				wantCode(t, res, c.code)
				moved, _ := filepath.Glob(path + ".corrupt-*")
				if len(moved) != 1 {
					t.Fatalf("moved aside: %v, want one file\nstderr:\n%s", moved, res.Stderr)
				}
				if kept, _ := os.ReadFile(moved[0]); !bytes.Equal(kept, before) {
					t.Errorf("%s is not the damaged file as it was", moved[0])
				}
				wantContains(t, "stderr", res.Stderr, fmt.Sprintf("the state file %s was unreadable", path), "moved to "+moved[0],
					"what gh-ocdx remembered of your PRs is in it", "a new one was started")
				if strings.Contains(res.Stderr, "panic") {
					t.Errorf("panicked:\n%s", res.Stderr)
				}
				// The fresh file works: the next command says nothing more.
				again := lf.env.Run(t, "state", "show")
				wantCode(t, again, 0)
				if strings.Contains(again.Stderr, "unreadable") {
					t.Errorf("the fresh file was refused too:\n%s", again.Stderr)
				}
			})
		}
	}
}
