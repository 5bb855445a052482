package progress

import (
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/internal/tokens"
)

// Without a terminal, a long model call is reported at intervals, naming
// the role, until it ends.
func TestProgressSaysStillWaitingWithoutATerminal(t *testing.T) {
	var out testkit.Buffer
	p := New(&out, 0, nil)
	p.every = 30 * time.Millisecond
	c := p.start("reviewer-2", "openai/gpt-4.1", 1, 0)
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(out.String(), "still waiting for reviewer-2 (") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no repeated still-waiting line:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Done(tokens.Usage{}, nil)
	time.Sleep(3 * p.every)
	n := strings.Count(out.String(), "still waiting")
	time.Sleep(3 * p.every)
	if m := strings.Count(out.String(), "still waiting"); m != n {
		t.Errorf("still waiting after the call ended:\n%s", out.String())
	}
}
