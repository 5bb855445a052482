package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// The verify line ("verify (from .ocdx.json on main at 1a2b3c4): …") says
// once per run which commands check a fix and where they come from: not
// again before each round, each fix or each attempt.

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

func TestFixSaysTheVerifyLineOnceOverItsAttempts(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	first := s.predict(t, map[string]string{"c.txt": "c\n"}, "feat: c")
	second := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer",
		testkit.CallTools(call("write_file", map[string]string{"path": "c.txt", "content": "c\n"})),
		testkit.CallTools(call("git_commit", map[string]any{"message": "feat: c"})),
		envelope(map[string]string{a: first}, map[string]string{b: "fine"}, first),
		testkit.CallTools(fixA), testkit.CallTools(commitA),
		envelope(map[string]string{a: second}, map[string]string{b: "fine"}, first, second))

	res := s.run(t, "--yes")

	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "attempt 2 of 3")
	if n := strings.Count(res.Stderr, "verify ("); n != 1 {
		t.Errorf("%d verify lines over 2 attempts, want 1:\n%s", n, res.Stderr)
	}
}
