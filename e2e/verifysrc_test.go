package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// A PR's author writes .ocdx.json on the PR's branch; the commands gh-ocdx
// runs come from its base branch or from the user's configuration.

// markerVerify is an .ocdx.json whose verify command writes marker.
func markerVerify(marker string) string {
	return fmt.Sprintf(`{"verify": ["sh -c 'echo pwned > %s'"]}`, marker)
}

func wantNoFile(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s: %s exists", what, path)
	}
}

// commitOn commits files on branch in the clone and pushes it, then checks
// out back the branch the clone was on.
func commitOn(t *testing.T, r *testkit.Repo, branch string, files map[string]string) string {
	t.Helper()
	back := testkit.Git(t, r.Clone, "branch", "--show-current")
	testkit.Git(t, r.Clone, "checkout", "--quiet", branch)
	testkit.WriteFiles(t, r.Clone, files)
	testkit.Git(t, r.Clone, "add", "-A")
	testkit.Git(t, r.Clone, "commit", "--quiet", "-m", "policy")
	testkit.Git(t, r.Clone, "push", "--quiet", "origin", branch)
	testkit.Git(t, r.Clone, "checkout", "--quiet", back)
	return r.RemoteOID(t, branch)
}

func TestFixNeverRunsTheVerifyCommandsOfThePRsOcdxJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, base, source string
	}{
		{"base has none", "", "verify (from your configuration "},
		{"base has one", `{"verify": ["sh check.sh"]}`, "verify (from .ocdx.json on main at "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "pwned")
			base := map[string]string{}
			if tc.base != "" {
				base[".ocdx.json"] = tc.base
			}
			s := newFixSetupFiles(t, base, map[string]string{".ocdx.json": markerVerify(marker)})
			a, b := fixIDs()
			sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
			s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA),
				envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, sha))

			res := s.run(t, "--yes")

			if res.Code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", res.Code, res.Stderr)
			}
			wantNoFile(t, marker, "the PR's verify command ran")
			s.wantRemote(t, sha)
			wantContains(t, "stderr", res.Stderr, tc.source, "): sh check.sh\n", "✓ sh check.sh",
				"PR #24 changes .ocdx.json: its change takes effect once merged")
			if tc.base != "" {
				wantContains(t, "stderr", res.Stderr, "verify (from .ocdx.json on main at "+s.repo.RemoteOID(t, "main")[:7]+"): sh check.sh")
			}
		})
	}
}

func TestLoopNeverRunsTheVerifyCommandsOfThePRsOcdxJSON(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	marker := filepath.Join(t.TempDir(), "pwned")
	lf.start = commitOn(t, lf.repo, lf.repo.Head, map[string]string{".ocdx.json": markerVerify(marker)})
	lf.findingRound(cacheBug)
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	wantNoFile(t, marker, "the PR's verify command ran")
	if lf.repo.RemoteOID(t, lf.repo.Head) == lf.start {
		t.Fatal("the fix was not pushed")
	}
	wantContains(t, "stderr", res.Stderr, "verify (from your configuration ", "config.json): true\n", "✓ true")
}

func TestLoopRunsTheBaseBranchsVerifyCommandsShowingTheirSource(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	ran := filepath.Join(t.TempDir(), "base-verify-ran")
	// The base's .ocdx.json is not in the checkout (the PR branched before it):
	// it is read from GitHub.
	oid := commitOn(t, lf.repo, lf.repo.Base, map[string]string{".ocdx.json": fmt.Sprintf(`{"verify": ["sh -c 'echo ran >> %s'"]}`, ran)})
	source := fmt.Sprintf("verify (from .ocdx.json on main at %s): sh -c 'echo ran >> %s'\n", oid[:7], ran)

	lf.findingRound(cacheBug)
	dry := lf.run("--dry-run")
	wantCode(t, dry, 0)
	wantContains(t, "dry-run stderr", dry.Stderr, source)

	lf.findingRound(cacheBug)
	lf.approveRound()
	res := lf.run("--yes")

	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, source)
	if got, err := os.ReadFile(ran); err != nil || string(got) != "ran\n" {
		t.Errorf("the base's verify command ran %q times (%v), want once: by the fix, not by the dry run", got, err)
	}
}
