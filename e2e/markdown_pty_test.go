//go:build unix

package e2e

import (
	"strings"
	"testing"
)

// A model's review may spell terminal escapes as character references
// (&#27; is ESC, &#x9b; a C1 CSI, &#x202e; a right-to-left override), which
// text.Inert leaves alone because they are not control characters yet. The
// renderer decodes them and must show them as text, in every theme; piped,
// the Markdown is printed as written.
func TestRenderedMarkdownShowsEncodedEscapesAsText(t *testing.T) {
	t.Parallel()
	const body = "## Verdict\n\nLooks fine.&#27;[8mAPPROVE-HIDDEN&#27;[0m &#x1b;]0;pwned&#7; &#x9b;31mC1 &#x202e;RTL\n\n" +
		"- [docs](https://example.com/&#27;[2K) and `&#27;[1m`\n"
	for _, colour := range []bool{true, false} {
		_, fm, env := modelFixture(t, "openai/gpt-rev")
		if colour {
			env.Set("NO_COLOR", "")
		}
		scriptReview(fm, "gpt-rev", "COMMENT", body)
		term := env.StartTerminal(t, "review-pr", "24", "--print")
		if code := term.Wait(); code != 0 {
			t.Fatalf("exit %d:\n%s", code, term.Screen())
		}
		screen := term.Screen()
		for _, shown := range []string{"^[[8mAPPROVE-HIDDEN^[[0m", "^[]0;pwned^G", "<U+009B>31mC1", "<U+202E>RTL", "https://example.com/^[[2K", "&#27;[1m"} {
			if !strings.Contains(screen, shown) {
				t.Errorf("colour %v: %q is not shown as text:\n%q", colour, shown, screen)
			}
		}
		for _, live := range []string{"\x1b[8mAPPROVE", "\x1b]0;", "\u009b", "\u202e", "\x1b[2K", "\x07"} {
			if strings.Contains(screen, live) {
				t.Errorf("colour %v: the screen received the live sequence %q", colour, live)
			}
		}
	}
}
