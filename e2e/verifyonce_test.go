package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// The verify line ("verify (from .ocdx.json on main at 1a2b3c4): …") says
// once per run which commands check a fix and where they come from: not
// again before each round, each fix or each attempt (for fix's attempts:
// TestFixRetriesAfterAFailedVerification).

// threeFixedRounds is a PR whose base's .ocdx.json sets two verify
// commands, and three rounds that each find something, two of them fixed:
// it returns the verify line.
func threeFixedRounds(t *testing.T) (*loopFix, string) {
	t.Helper()
	lf := newLoop(t, nil)
	oid := commitOn(t, lf.repo, lf.repo.Base, map[string]string{".ocdx.json": `{"verify": ["true", "git status --short"]}`})
	for i := 1; i <= 3; i++ {
		lf.findingRound(modelFinding{Priority: "P2", Category: "testing", File: fmt.Sprintf("t%d.go", i), Title: fmt.Sprintf("Missing test %d", i)})
	}
	return lf, fmt.Sprintf("verify (from .ocdx.json on main at %s): true; git status --short", oid[:7])
}

// wantVerifyLineOnce checks that out, of a run of threeFixedRounds, says
// its verify line once, and no other.
func wantVerifyLineOnce(t *testing.T, lf *loopFix, out, line string) {
	t.Helper()
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2 fix:2 review:3]" {
		t.Fatalf("comments %s", k)
	}
	if n := strings.Count(out, line); n != 1 {
		t.Errorf("the verify line is said %d times over 3 rounds and 2 fixes, want once:\n%s", n, out)
	}
	if n := strings.Count(out, "verify ("); n != 1 {
		t.Errorf("%d verify lines, want 1:\n%s", n, out)
	}
}

func TestLoopSaysTheVerifyLineOncePerRun(t *testing.T) {
	t.Parallel()
	lf, line := threeFixedRounds(t)

	res := lf.run("--yes")

	wantCode(t, res, 3)
	wantVerifyLineOnce(t, lf, res.Stderr, line)
}
