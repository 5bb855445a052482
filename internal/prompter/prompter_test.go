package prompter

import (
	"bytes"
	"strings"
	"testing"
)

// A question wider than the terminal is wrapped: its first lines printed,
// its last drawn by survey (which redraws by counting lines, and garbles a
// line the terminal had to wrap itself).
func TestLongQuestionsAreWrapped(t *testing.T) {
	var out bytes.Buffer
	p := &Survey{io: Streams{Out: &out, Width: func() int { return 44 }}}
	msg := "An earlier fix of PR #7 stopped at: verified, not pushed (2 commits on feature/a-rather-long-branch). What now?"
	got := p.fit(msg)
	if len([]rune(got)) > 40 || !strings.HasSuffix(got, "What now?") {
		t.Errorf("question %q", got)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if len([]rune(l)) > 40 {
			t.Errorf("printed line of %d columns: %q", len([]rune(l)), l)
		}
	}
	if strings.Join(strings.Fields(out.String()+" "+got), " ") != msg {
		t.Errorf("words lost: %q + %q", out.String(), got)
	}
	out.Reset()
	if short := p.fit("Use them?"); short != "Use them?" || out.Len() != 0 {
		t.Errorf("a short question changed: %q, printed %q", short, out.String())
	}
}
