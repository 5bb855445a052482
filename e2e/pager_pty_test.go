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
