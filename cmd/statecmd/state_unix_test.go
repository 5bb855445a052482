//go:build unix

package statecmd

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// ptyRun runs the binary on a pseudo-terminal, waits for want on the screen,
// types answer, and returns the exit code and the screen.
func ptyRun(t *testing.T, env *testkit.Env, want, answer string, args ...string) (int, string) {
	t.Helper()
	term := env.StartTerminal(t, args...)
	term.Expect(want)
	term.Send(answer)
	code := term.Wait()
	return code, term.Screen()
}

func TestStateBinaryClearAsksInATerminal(t *testing.T) {
	t.Parallel()
	env, dir := stateBinaryEnv(t)
	seedState(t, dir)
	question := "Forget everything recorded for github.com/owner/repo#7"

	if code, screen := ptyRun(t, env, question, "n\r", "state", "clear", "--pr", "7"); code != 130 || !recorded(t, dir, testKey) {
		t.Fatalf("answered no: exit %d\n%s", code, screen)
	}
	if code, screen := ptyRun(t, env, question, "\x03", "state", "clear", "--pr", "7"); code != 130 || !recorded(t, dir, testKey) {
		t.Fatalf("Ctrl-C: exit %d\n%s", code, screen)
	}
	code, screen := ptyRun(t, env, question, "y\r", "state", "clear", "--pr", "7")
	if code != 0 || !strings.Contains(screen, "✓ Cleared the state of github.com/owner/repo#7") || recorded(t, dir, testKey) {
		t.Fatalf("answered yes: exit %d\n%s", code, screen)
	}
}
