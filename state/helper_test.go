package state

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// The tests re-run their own binary as a second process: with helperEnv set,
// TestMain runs the helper named by it instead of the tests.
const helperEnv = "STATE_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		if err := helper(mode, os.Getenv("STATE_TEST_PATH"), os.Getenv("STATE_TEST_KEY")); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(testkit.RunInMemory(m))
}

func helper(mode, path, key string) error {
	s := New(path, &Options{Timeout: 10 * time.Second, HeartbeatEvery: 50 * time.Millisecond})
	k, err := ParseKey(key)
	if err != nil {
		return err
	}
	switch mode {
	case "write": // one finished run on each of 5 PRs
		for i := range 5 {
			a, err := s.Begin(NewKey(k.Host, k.Owner, k.Repo, k.Number+i), "review-loop")
			if err != nil {
				return err
			}
			if _, err := a.StartRound(1, "abc"); err != nil {
				return err
			}
			if err := a.Complete(1, PhaseReviewed, func(r *Round) { r.FindingIDs = []string{"SEC-1"} }); err != nil {
				return err
			}
			if err := a.End(OutcomeBlocked, "max rounds"); err != nil {
				return err
			}
		}
		fmt.Println("done")
	case "hold": // a run that stopped after posting round 1's review, and lives on
		a, err := s.Begin(k, "review-loop")
		if err != nil {
			return err
		}
		if _, err := a.StartRound(1, "abc"); err != nil {
			return err
		}
		if err := a.Complete(1, PhaseReviewed, func(r *Round) { r.FindingIDs = []string{"SEC-1", "QUAL-2"} }); err != nil {
			return err
		}
		if err := a.Complete(1, PhaseCommented, func(r *Round) {
			r.Comments = append(r.Comments, Comment{Kind: "review", Tag: "ocdx:run=" + a.ID() + " round=1 kind=review", URL: "https://example.com/c/1"})
		}); err != nil {
			return err
		}
		fmt.Println("ready", a.ID())
		time.Sleep(time.Minute)
	case "churn": // records phases as fast as it can until killed
		a, err := s.Begin(k, "review-loop")
		if err != nil {
			return err
		}
		fmt.Println("ready", a.ID())
		phases := []Phase{PhaseReviewed, PhaseCommented, PhaseFixed, PhaseVerified, PhasePushed}
		for n := 1; ; n++ {
			if _, err := a.StartRound(n, fmt.Sprint("head", n)); err != nil {
				return err
			}
			for i, p := range phases {
				if err := a.Complete(n, p, func(r *Round) { r.FindingIDs = append(r.FindingIDs, fmt.Sprint(i)) }); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("unknown helper %q", mode)
	}
	return nil
}

// child starts a helper process and, when wait is set, waits for its first
// line ("ready <run id>" or "done"), which it returns.
type child struct {
	cmd   *exec.Cmd
	lines *bufio.Scanner
}

func startHelper(t *testing.T, mode, path string, key Key) *child {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), helperEnv+"="+mode, "STATE_TEST_PATH="+path, "STATE_TEST_KEY="+key.String())
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ch := &child{cmd: c, lines: bufio.NewScanner(out)}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	return ch
}

// line returns the helper's next line of output.
func (c *child) line(t *testing.T) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		c.lines.Scan()
		got <- c.lines.Text()
	}()
	select {
	case l := <-got:
		if l == "" {
			t.Fatal("helper exited without output")
		}
		return l
	case <-time.After(20 * time.Second):
		t.Fatal("helper did not answer")
		return ""
	}
}

// kill ends the helper the hard way and reaps it, so its pid is gone.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
}

func runIDOf(line string) string { return strings.TrimPrefix(line, "ready ") }
