package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// The GitHub Action's script (action/run.sh, which action.yml calls) runs
// review-loop through gh against the fakes, as a workflow step would: it
// writes the outcome and exit code to $GITHUB_OUTPUT, the run's summary to
// $GITHUB_STEP_SUMMARY, and exits with review-loop's code.
func TestActionScriptWritesOutputsAndSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		rounds  func(lf *loopFix)
		args    string
		code    int
		outcome string
		summary []string
	}{
		{"converged", func(lf *loopFix) { lf.approveRound() }, "--max-tokens 900000", 0, "converged",
			[]string{"## gh-ocdx review-loop: PR #31", "**converged** (exit 0)", "| 1 | `", "No P0–P2 finding remains.", "/pull/31)"}},
		{"blocked", func(lf *loopFix) { lf.findingRound(cacheBug); lf.findingRound(cacheBug) }, "", 3, "blocked",
			[]string{"**blocked** (exit 3): manual intervention required", "| 2 | `", "Remaining P0–P2: " + cacheBug.id()}},
		// Shell in an input is words, not commands: review-loop refuses them.
		{"shell in args", func(lf *loopFix) {}, "; touch pwned $(touch pwned) `touch pwned`", 2, "error",
			[]string{"**error** (exit 2)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath("gh"); err != nil {
				t.Fatal("gh is not on PATH: install the Debian package gh (.ci/run does)")
			}
			if _, err := exec.LookPath("jq"); err != nil {
				t.Fatal("jq is not on PATH: install the Debian package jq (.ci/run does)")
			}
			lf := newLoop(t, nil)
			tc.rounds(lf)
			install := *lf.env
			install.Dir = filepath.Dir(testkit.Binary(t))
			if res := install.RunWith(t, nil, "gh", "extension", "install", "."); res.Code != 0 {
				t.Fatalf("gh extension install . exited %d:\n%s", res.Code, res.Stderr)
			}
			outputs, summary := filepath.Join(t.TempDir(), "output"), filepath.Join(t.TempDir(), "summary")
			for k, v := range map[string]string{"INPUT_PR": "", "EVENT_PR": "31", "INPUT_VERSION": "installed", "INPUT_ARGS": tc.args,
				"GITHUB_OUTPUT": outputs, "GITHUB_STEP_SUMMARY": summary} {
				lf.env.Set(k, v)
			}

			res := lf.env.RunWith(t, nil, "bash", filepath.Join(testkit.ModuleRoot(), "action", "run.sh"))

			if res.Code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", res.Code, tc.code, res.Stderr)
			}
			out, _ := os.ReadFile(outputs)
			if want := fmt.Sprintf("outcome=%s\nexit-code=%d\n", tc.outcome, tc.code); string(out) != want {
				t.Errorf("GITHUB_OUTPUT:\n%s\nwant:\n%s", out, want)
			}
			sum, _ := os.ReadFile(summary)
			wantContains(t, "GITHUB_STEP_SUMMARY", string(sum), tc.summary...)
			if _, err := os.Stat(filepath.Join(lf.env.Dir, "pwned")); err == nil {
				t.Error("an input ran a command")
			}
		})
	}
}
