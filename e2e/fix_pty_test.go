//go:build unix

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestFixConfirmsThePushInATerminal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		key  string
		code int
	}{
		{"yes", "y\r", 0},
		{"no", "n\r", 130},
		{"ctrl-c", testkit.CtrlC, 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFixSetup(t)
			a, b := fixIDs()
			sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
			s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA),
				envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, sha))

			term := s.env.StartTerminal(t, "fix", "--pr", "24", "--findings", s.env.Root+"/payload.json")
			term.Expect("fix: a is safe now") // the commits are shown
			term.Expect("a.txt | ")           // with their diffstat
			term.Expect("Push 1 commit to origin/feature/fix?")
			term.Send(tc.key)
			if code := term.Wait(); code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, term.Screen())
			}
			if tc.code == 0 {
				s.wantRemote(t, sha)
				s.checkComments(t, 1)
				return
			}
			s.wantRemote(t, s.start)
			s.checkComments(t, 0)
			if got := s.git(t, s.repo.Clone, "rev-parse", "HEAD"); got != sha {
				t.Errorf("the commit must stay local: %s", got)
			}
			// A later --continue pushes the verified commit without a new agent run.
			res := s.env.Run(t, "fix", "--pr", "24", "--continue", "--yes")
			if res.Code != 0 || len(s.fm.Requests("fixer")) != 3 {
				t.Fatalf("continue after a declined push: exit %d, %d model calls\n%s", res.Code, len(s.fm.Requests("fixer")), res.Stderr)
			}
			s.wantRemote(t, sha)
			// The summary and the report count the whole fix, not only
			// the push.
			wantContains(t, "stdout", res.Stdout, "verified in 1 attempt", "(3 calls)")
			wantContains(t, "fix report", s.checkComments(t, 1)[0].Body, "verified in 1 attempt", "3 calls")
		})
	}
}

func TestFixAsksToContinueOrRestart(t *testing.T) {
	t.Parallel()
	s := newFixSetup(t)
	a, b := fixIDs()
	// A first fix whose verification fails three times leaves a WIP.
	var shas []string
	for i := range 3 {
		content := fmt.Sprintf("try %d\n", i)
		sha := s.predict(t, map[string]string{"c.txt": content}, fmt.Sprintf("try %d", i))
		shas = append(shas, sha)
		s.fm.Script("fixer",
			testkit.CallTools(call("write_file", map[string]string{"path": "c.txt", "content": content})),
			testkit.CallTools(call("git_commit", map[string]any{"message": fmt.Sprintf("try %d", i)})),
			envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, shas...))
	}
	if res := s.run(t, "--yes"); res.Code != 3 {
		t.Fatalf("first fix: exit %d\n%s", res.Code, res.Stderr)
	}
	s.fold(t, 3, "try 0\n\ntry 1\n\ntry 2") // its three attempts' commits, as one

	sha := s.predict(t, map[string]string{"a.txt": "fixed\n"}, "fix: a is safe now")
	s.fm.Script("fixer", testkit.CallTools(fixA), testkit.CallTools(commitA),
		envelope(map[string]string{a: sha}, map[string]string{b: "fine"}, sha))
	term := s.env.StartTerminal(t, "fix", "--pr", "24")
	term.Expect("An earlier fix of PR #24 stopped at: verification failed")
	term.Send(testkit.Enter)      // continue it
	term.Expect("Push 2 commits") // the failed fix's attempts as one, and the fix
	term.Send("y\r")
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	reqs := s.fm.Requests("fixer")
	if first := string(reqs[9].Body); !strings.Contains(first, "Resuming an interrupted fix") || !strings.Contains(first, "verification failed") {
		t.Errorf("the continued fix must be told where it stopped:\n%s", first)
	}
	s.wantRemote(t, sha)
	s.checkComments(t, 2) // the failed fix's report, then the continued one's
}
