//go:build unix

package e2e

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// state show goes through the person's pager on a terminal, as gh's long
// output does (GH_PAGER, else PAGER), and never when piped.
func TestStateShowGoesThroughThePager(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	env.Set("PAGER", "sed s/^/PAGED:/")

	term := env.StartTerminal(t, "state", "show")
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if s := term.Screen(); !strings.Contains(s, "PAGED:No pull requests recorded") {
		t.Errorf("not through PAGER:\n%s", s)
	}

	env.Set("GH_PAGER", "sed s/^/GH-PAGED:/")
	term = env.StartTerminal(t, "state", "show")
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if s := term.Screen(); !strings.Contains(s, "GH-PAGED:No pull requests recorded") {
		t.Errorf("GH_PAGER does not come first:\n%s", s)
	}

	res := env.Run(t, "state", "show")
	if res.Code != 0 || strings.Contains(res.Stdout, "PAGED:") || !strings.Contains(res.Stdout, "No pull requests recorded") {
		t.Errorf("piped output went through the pager: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}

// Before a push the commits and git's diffstat are listed one under the
// other, indented alike, the stat's columns lined up.
func TestPushPreviewIsAligned(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)

	term := lf.env.StartTerminal(t, "review-loop")
	term.Expect("Push 1 commit to origin/feature/cache?")
	screen := strings.ReplaceAll(term.Screen(), "\r\n", "\n")
	term.Send("n" + testkit.Enter)
	term.Wait()

	_, preview, _ := strings.Cut(screen, "Commits to push to origin/feature/cache:\n")
	preview, _, _ = strings.Cut(preview, "Push 1 commit")
	var lines []string
	bar := -1
	for _, l := range strings.Split(preview, "\n") {
		l = strings.TrimRight(l, " \r")
		if l == "" || strings.Contains(l, "?") {
			continue
		}
		lines = append(lines, l)
		if !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "   ") {
			t.Errorf("%q is not indented as the commits are", l)
		}
		if i := strings.Index(l, " | "); i >= 0 {
			if bar >= 0 && i != bar {
				t.Errorf("the diffstat's columns do not line up at %q", l)
			}
			bar = i
		}
	}
	if bar < 0 || len(lines) < 3 || !strings.Contains(preview, "changed") {
		t.Errorf("no diffstat under the commits:\n%s", screen)
	}
}

// On a terminal, help is filled to its width (120 here), not to 80.
func TestHelpFillsTheTerminal(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)

	term := env.StartTerminal(t, "review-loop", "--help")
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	help := strings.ReplaceAll(term.Screen(), "\r\n", "\n")
	longest := 0
	for _, l := range strings.Split(help, "\n") {
		longest = max(longest, len([]rune(l)))
	}
	if !strings.HasPrefix(help, "Usage: gh ocdx review-loop") || longest > 120 || longest <= 100 {
		t.Errorf("the longest line has %d characters, want the terminal's 120 at most and more than 100:\n%s", longest, help)
	}
}
