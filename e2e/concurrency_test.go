package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/state"
)

// TestFourLoopsShareOneStateFile runs four loops on four PRs at once, each
// through a fix round, writing to one state file: all converge and the
// file holds the four PRs' records.
func TestFourLoopsShareOneStateFile(t *testing.T) {
	t.Parallel()
	shared := t.TempDir()
	lfs := make([]*loopFix, 4)
	for i := range lfs {
		lfs[i] = newLoop(t, nil)
		lfs[i].env.Set("OCDX_STATE_DIR", shared)
		lfs[i].findingRound(cacheBug)
		lfs[i].approveRound()
	}
	type result struct {
		out []byte
		err error
		lf  *loopFix
	}
	done := make(chan result)
	for _, lf := range lfs {
		go func() {
			c := exec.Command(testkit.Binary(t), "review-loop", "--yes")
			c.Dir, c.Env = lf.env.Dir, lf.env.List()
			out, err := c.CombinedOutput()
			done <- result{out: out, err: err, lf: lf}
		}()
	}
	for range lfs {
		r := <-done
		if r.err != nil {
			t.Errorf("a loop failed: %v\n%s", r.err, r.out)
			continue
		}
		if k := fmt.Sprint(r.lf.kinds()); k != "[review:1 fix:1 review:2]" {
			t.Errorf("comments %s", k)
		}
	}
	for _, lf := range lfs {
		if r := last(recorded(t, lf.env, loopPR)); r.Outcome != state.OutcomeConverged || len(r.Rounds) != 2 {
			t.Errorf("recorded run: outcome %q, %d rounds", r.Outcome, len(r.Rounds))
		}
	}
	show := lfs[0].env.Run(t, "state", "show", "--json", "pr", "--jq", ".[].pr.number")
	if n := strings.Count(show.Stdout, fmt.Sprint(loopPR)+"\n"); n != 4 {
		t.Fatalf("state show --json pr --jq: want the 4 PRs\n%s", show.Stdout)
	}
}

// TestSecondLoopOnTheSamePRIsRefused: while a loop holds a PR, another on
// the same PR stops at once (exit 1) naming the holder, and touches
// nothing.
func TestSecondLoopOnTheSamePRIsRefused(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.fm.Script("rev-a", testkit.Stall(time.Minute, ""))
	lf.fm.Script("rev-b", reviewerReply("reviewer-2", "approve"))
	lf.fm.Script("analyzer", analyzerReply())
	lf.approveRound()

	first := exec.Command(testkit.Binary(t), "review-loop", "--yes")
	first.Dir, first.Env = lf.env.Dir, lf.env.List()
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Process.Kill(); first.Wait() })
	for deadline := time.Now().Add(30 * time.Second); len(lf.fm.Requests("rev-a")) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first loop never started its reviews")
		}
	}

	second := lf.run("--yes")

	wantCode(t, second, 1)
	wantContains(t, "stderr", second.Stderr, "already being worked on", fmt.Sprintf("pid %d", first.Process.Pid))
	if first.ProcessState != nil {
		t.Fatal("the first loop ended before the second was refused")
	}
	if n := len(lf.fm.Requests("rev-b")); n != 1 {
		t.Errorf("the refused loop reached the models (%d requests of reviewer-2)", n)
	}
	if len(lf.bodies()) != 0 {
		t.Error("the refused loop posted")
	}
}
