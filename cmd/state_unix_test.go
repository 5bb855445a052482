//go:build unix

package cmd

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// ptyRun runs the binary on a pseudo-terminal, waits for want on the screen,
// types answer, and returns the exit code and the screen.
func ptyRun(t *testing.T, env *testkit.Env, want, answer string, args ...string) (int, string) {
	t.Helper()
	c := exec.Command(testkit.Binary(t), args...)
	c.Dir, c.Env = env.Dir, append(env.List(), "TERM=xterm")
	tty, err := pty.StartWithSize(c, &pty.Winsize{Rows: 24, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		answered := 0
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			// Play the terminal: answer each cursor position query (survey
			// and termenv wait for one).
			asked := strings.Count(screen.String(), "\x1b[6n")
			mu.Unlock()
			for ; answered < asked; answered++ {
				_, _ = tty.Write([]byte("\x1b[1;1R"))
			}
			if err != nil {
				return
			}
		}
	}()
	seen := func() string { mu.Lock(); defer mu.Unlock(); return screen.String() }
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(seen(), want) {
		if time.Now().After(deadline) {
			_ = c.Process.Kill()
			t.Fatalf("no %q on the screen:\n%s", want, seen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := tty.Write([]byte(answer)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = c.Process.Kill()
		t.Fatalf("still running after the answer:\n%s", seen())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), seen()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, seen()
}

func TestStateBinaryClearAsksInATerminal(t *testing.T) {
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
	if code != 0 || !strings.Contains(screen, "Cleared the state of github.com/owner/repo#7.") || recorded(t, dir, testKey) {
		t.Fatalf("answered yes: exit %d\n%s", code, screen)
	}
}
