//go:build unix

package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// TestReviewPRTerminalEscapesAreInert: a model (steered by the PR) puts
// terminal escapes in its context request and review: conceal, a window
// title, line erase and cursor up, a C1 control and a right-to-left
// override. At Orient and Decide the terminal shows them as visible text,
// and the posted review carries none of them.
func TestReviewPRTerminalEscapesAreInert(t *testing.T) {
	t.Parallel()
	gh, fm, env := modelFixture(t, "openai/gpt-rev")
	hostileBody := "Looks fine.\x1b[8mAPPROVE-HIDDEN\x1b[0m\x1b]0;pwned-title\x07\x1b[2K\x1b[1AERASED\r\n\u009b31mC1 \u202eRTL\u202c end"
	args, _ := json.Marshal(map[string]string{"event": "COMMENT", "body": hostileBody})
	proposal, _ := json.Marshal(map[string]string{"proposal": "read auth.go\x1b[8mSECRET-ASK\x1b[0m"})
	fm.Script("gpt-rev",
		testkit.CallTools(testkit.FakeCall{Name: "request_context", Args: string(proposal)}),
		testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: string(args)}))

	term := env.StartTerminal(t, "review-pr", "24")
	term.Expect("read auth.go^[[8mSECRET-ASK^[[0m")
	term.Expect("Context request")
	term.Send(testkit.Enter)
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	screen := term.Screen()
	for _, inert := range []string{"^[[8mAPPROVE-HIDDEN^[[0m", "^[]0;pwned-title^G", "^[[2K^[[1AERASED", "<U+009B>31mC1 <U+202E>RTL<U+202C> end"} {
		if !strings.Contains(screen, inert) {
			t.Errorf("the screen does not show %q as text:\n%q", inert, screen)
		}
	}
	for _, live := range []string{"\x1b[8mAPPROVE", "\x1b[8mSECRET", "\x1b]0;", "\x1b[1AERASED", "\u009b", "\u202e", "\rC1"} {
		if strings.Contains(screen, live) {
			t.Errorf("the screen received the live sequence %q", live)
		}
	}
	reviews := gh.Reviews(repo, 24)
	if len(reviews) != 1 {
		t.Fatalf("%d reviews posted, want 1", len(reviews))
	}
	body := reviews[0].Body
	if strings.ContainsAny(body, "\x1b\x07\r\u009b\u202e\u202c") || !strings.Contains(body, "^[[8mAPPROVE-HIDDEN") {
		t.Errorf("the posted body carries control characters: %q", body)
	}
}
