//go:build unix

package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// TestSignalsInEachPhase delivers SIGINT and SIGTERM while the reviews run,
// after the review report is posted, during the fix, during verification
// and at the push question: the run exits 130, its verify command (and that
// command's children) stop, the state is left resumable, and a re-run
// finishes without posting anything twice or reviewing round 1 again.
func TestSignalsInEachPhase(t *testing.T) {
	t.Parallel()
	phases := []struct {
		name  string
		setup func(lf *loopFix, dir string) (ready func() bool, resume func())
		// posted is what the PR shows when the signal arrives.
		posted string
	}{
		{"reviews running", func(lf *loopFix, _ string) (func() bool, func()) {
			// reviewer-2 and the analyzer finish; their answers are lost
			// with the unfinished round.
			lf.fm.Script("rev-a", testkit.Stall(time.Minute, ""))
			lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
			lf.fm.Script("analyzer", analyzerReply())
			return func() bool { return len(lf.fm.Requests("rev-a")) > 0 }, func() {}
		}, "[]"},
		{"after the comment", func(lf *loopFix, _ string) (func() bool, func()) {
			lf.fix.Block = make(chan struct{})
			return func() bool { return len(lf.bodies()) > 0 && lf.fix.Count() > 0 }, func() { lf.unblock() }
		}, "[review:1]"},
		{"during the fix", func(lf *loopFix, _ string) (func() bool, func()) {
			// The agent's first turn writes and commits; its second waits.
			lf.fix.OnRequest = func() {
				if lf.fix.Count() == 1 {
					lf.fix.Mu.Lock()
					lf.fix.Block = make(chan struct{})
					lf.fix.Mu.Unlock()
				}
			}
			return func() bool { return lf.fix.Count() > 1 }, func() { lf.unblock() }
		}, "[review:1]"},
		{"during verification", func(lf *loopFix, dir string) (func() bool, func()) {
			script := filepath.Join(dir, "verify.sh")
			os.WriteFile(script, []byte(fmt.Sprintf("[ -e %[1]s/pass ] && exit 0\nsleep 60 &\necho $! > %[1]s/pid\nwait\n", dir)), 0o700)
			lf.env.WriteConfig(lf.t, `{"reviewerModels": ["openai/rev-a", "anthropic/rev-b"], "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer", "verify": ["sh `+script+`"]}`)
			return func() bool { return pidIn(dir) > 0 }, // written in full: the shell truncates first
				func() { os.WriteFile(filepath.Join(dir, "pass"), nil, 0o600) }
		}, "[review:1]"},
	}
	for _, ph := range phases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(ph.name+"/"+sig.String(), func(t *testing.T) {
				t.Parallel()
				lf := newLoop(t, nil)
				dir := t.TempDir()
				ready, resume := ph.setup(lf, dir)
				lf.findingRound(cacheBug)

				stderr := lf.interrupt(sig, ready)

				// One line says what happened: no role's "context canceled",
				// no "error:".
				if !strings.HasSuffix(stderr, "\ncancelled; run the same command to resume\n") || strings.Contains(stderr, "context canceled") || strings.Contains(stderr, "error:") {
					t.Errorf("stderr should end with one line saying the run was cancelled:\n%s", stderr)
				}

				if k := fmt.Sprint(lf.kinds()); k != ph.posted {
					t.Fatalf("comments %s when interrupted, want %s", k, ph.posted)
				}
				if n := pidIn(dir); n > 0 && !gone(n) {
					t.Errorf("the verify command's child %d outlived the run", n)
				}
				if r := last(recorded(t, lf.env, loopPR)); r.Outcome != "" || r.ID == "" {
					t.Fatalf("the run must be left resumable: %+v\nstderr:\n%s", r, stderr)
				}
				resume()
				reviews := len(lf.fm.Requests("rev-a"))
				lf.approveRound()

				res := lf.run("--yes")

				wantCode(t, res, 0)
				wantContains(t, "stderr", res.Stderr, "resuming run")
				if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
					t.Fatalf("comments %s", k)
				}
				if ph.posted != "[]" && len(lf.fm.Requests("rev-a")) != reviews+1 {
					t.Errorf("round 1 was reviewed again")
				}
			})
		}
	}
}

// TestSignalAtThePushQuestion: a signal from outside the terminal while the
// push question waits ends the run (exit 130) with nothing pushed, and the
// re-run pushes the verified fix without redoing it.
func TestSignalAtThePushQuestion(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, nil)
			lf.findingRound(cacheBug)

			term := lf.env.StartBinaryTerminal(t, "review-loop")
			term.Expect("Push 1 commit to origin/feature/cache?")
			term.Signal(sig)
			if code := term.Wait(); code != 130 {
				t.Fatalf("exit %d, want 130:\n%s", code, term.Screen())
			}
			if lf.repo.RemoteOID(t, lf.repo.Head) != lf.start {
				t.Fatal("pushed despite the signal")
			}
			if r := last(recorded(t, lf.env, loopPR)); r.Outcome != "" {
				t.Fatalf("the run must be left resumable: %+v", r)
			}
			lf.pushWithoutRedoingTheFix()
		})
	}
}

// startUntil starts review-loop --yes and returns it once ready holds;
// the test fails if it never does.
func (lf *loopFix) startUntil(ready func() bool) (*exec.Cmd, *strings.Builder) {
	t := lf.t
	t.Helper()
	c := exec.Command(testkit.Binary(t), "review-loop", "--yes")
	c.Dir, c.Env = lf.env.Dir, lf.env.List()
	stderr := &strings.Builder{}
	c.Stderr = stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !ready(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("the run never reached the phase; stderr:\n%s", stderr.String())
		}
	}
	return c, stderr
}

// interrupt starts a run, sends sig once ready holds and wants exit 130.
func (lf *loopFix) interrupt(sig os.Signal, ready func() bool) string {
	t := lf.t
	t.Helper()
	c, stderr := lf.startUntil(ready)
	if err := c.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		c.Process.Kill()
		<-done
		t.Fatalf("still running 30 s after %v; stderr:\n%s", sig, stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("%v: %v, want exit 130; stderr:\n%s", sig, err, stderr.String())
	}
	return stderr.String()
}

// unblock lets the fix model answer again.
func (lf *loopFix) unblock() {
	lf.fix.Mu.Lock()
	defer lf.fix.Mu.Unlock()
	if lf.fix.Block != nil {
		close(lf.fix.Block)
	}
	lf.fix.Block, lf.fix.OnRequest = nil, nil
}

// gone waits a little for pid to exit; a zombie counts as gone, as its
// parent may not reap it in a container.
func gone(pid int) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			if syscall.Kill(pid, 0) != nil {
				return true
			}
			continue
		}
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return true
		}
	}
	return false
}

// pidIn reads the pid a verify script recorded in dir; 0 when none (yet).
func pidIn(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}
