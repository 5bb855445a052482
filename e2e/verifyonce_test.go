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

func TestLoopSaysTheVerifyLineOncePerRun(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	oid := commitOn(t, lf.repo, lf.repo.Base, map[string]string{".ocdx.json": `{"verify": ["true", "git status --short"]}`})
	for i := 1; i <= 3; i++ {
		lf.findingRound(modelFinding{Priority: "P2", Category: "testing", File: fmt.Sprintf("t%d.go", i), Title: fmt.Sprintf("Missing test %d", i)})
	}

	res := lf.run("--yes")

	wantCode(t, res, 3)
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2 fix:2 review:3]" {
		t.Fatalf("comments %s", k)
	}
	line := fmt.Sprintf("verify (from .ocdx.json on main at %s): true; git status --short\n", oid[:7])
	if n := strings.Count(res.Stderr, line); n != 1 {
		t.Errorf("the verify line is said %d times over 3 rounds and 2 fixes, want once:\n%s", n, res.Stderr)
	}
	if n := strings.Count(res.Stderr, "verify ("); n != 1 {
		t.Errorf("%d verify lines, want 1:\n%s", n, res.Stderr)
	}
}
