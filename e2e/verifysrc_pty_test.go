//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// The verify commands of a repository are asked about once, in a terminal,
// and again when they change; declining runs nothing.
func TestFixAsksOnceBeforeRunningARepositorysVerifyCommands(t *testing.T) {
	t.Parallel()
	s := newFixSetupFiles(t, map[string]string{".ocdx.json": `{"verify": ["sh log.sh"]}`, "log.sh": "echo ran >> ../verify.log\n"}, nil)
	log := filepath.Join(filepath.Dir(s.repo.Clone), "verify.log")
	a, b := fixIDs()
	const question = "Run these commands for octo/widgets"
	// An approved run: the agent runs the verify command, then gives up.
	scriptRun := func() {
		s.fm.Script("fixer", testkit.CallTools(call("run_command", map[string]any{"argv": []string{"sh", "log.sh"}})),
			envelope(nil, map[string]string{a: "not now", b: "fine"}))
	}
	runs := func() string { got, _ := os.ReadFile(log); return string(got) }

	term := s.env.StartTerminal(t, "fix", "--pr", "24", "--findings", s.env.Root+"/payload.json")
	term.Expect(question)
	term.Send("n\r")
	if code := term.Wait(); code != 1 || !strings.Contains(term.Screen(), "you declined the verify commands of .ocdx.json on main") {
		t.Fatalf("declined: exit %d, want 1:\n%s", code, term.Screen())
	}
	if n := len(s.fm.Requests("fixer")); n != 0 || runs() != "" {
		t.Fatalf("declining must run nothing: %d model calls, verify log %q", n, runs())
	}
	if st := s.env.Run(t, "state", "show", "--pr", "24", "--json"); !strings.Contains(st.Stdout, `"runs": []`) {
		t.Errorf("declining must record no run:\n%s\n%s", st.Stdout, st.Stderr)
	}

	scriptRun()
	term = s.env.StartTerminal(t, "fix", "--pr", "24", "--findings", s.env.Root+"/payload.json")
	term.Expect("sh log.sh")
	term.Expect(question)
	term.Send("y\r")
	if code := term.Wait(); code != 0 || runs() != "ran\n" {
		t.Fatalf("approved: exit %d, verify log %q:\n%s", code, runs(), term.Screen())
	}

	scriptRun()
	term = s.env.StartTerminal(t, "fix", "--pr", "24", "--findings", s.env.Root+"/payload.json")
	if code := term.Wait(); code != 0 || strings.Contains(term.Screen(), question) || runs() != "ran\nran\n" {
		t.Fatalf("second run: exit %d, verify log %q, asked again:\n%s", code, runs(), term.Screen())
	}
	if !strings.Contains(term.Screen(), "verify (from .ocdx.json on main at ") {
		t.Errorf("an approved list is still shown with its source:\n%s", term.Screen())
	}

	// A changed list is a new question.
	commitOn(t, s.repo, s.repo.Base, map[string]string{".ocdx.json": `{"verify": ["sh log.sh", "sh check.sh"]}`})
	calls := len(s.fm.Requests("fixer"))
	term = s.env.StartTerminal(t, "fix", "--pr", "24", "--findings", s.env.Root+"/payload.json")
	term.Expect("sh check.sh")
	term.Expect(question)
	term.Send("n\r")
	if code := term.Wait(); code != 1 || len(s.fm.Requests("fixer")) != calls || runs() != "ran\nran\n" {
		t.Fatalf("changed list declined: exit %d, %d more model calls, verify log %q:\n%s", code, len(s.fm.Requests("fixer"))-calls, runs(), term.Screen())
	}
}

func TestLoopAsksBeforeRunningARepositorysVerifyCommands(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	commitOn(t, lf.repo, lf.repo.Base, map[string]string{".ocdx.json": `{"verify": ["true"]}`})

	term := lf.env.StartTerminal(t, "review-loop", "--pr", "31")
	term.Expect("Run these commands for octo/widgets")
	term.Send("n\r")
	if code := term.Wait(); code != 1 || !strings.Contains(term.Screen(), "you declined the verify commands of .ocdx.json on main") {
		t.Fatalf("declined: exit %d, want 1:\n%s", code, term.Screen())
	}
	if n := len(lf.fm.Requests("rev-a")) + lf.fix.Count(); n != 0 || len(lf.own()) != 0 {
		t.Errorf("declining must call no model and post nothing: %d model calls", n)
	}
}
