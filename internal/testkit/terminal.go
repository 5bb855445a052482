//go:build unix

package testkit

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Keys a test types at a prompt.
const (
	Enter = "\r"
	Down  = "\x1b[B"
	CtrlC = "\x03"
)

// InProcessTerminal runs gh-ocdx in the test's own process on tty, a
// terminal, with e's environment and directory, and returns its exit code.
// A test package that can (e2e, from its TestMain) sets it, and
// StartTerminal then uses it instead of the built binary.
var InProcessTerminal func(t testing.TB, e *Env, tty *os.File, args []string) int

// Terminal runs gh-ocdx on a pseudo-terminal, as a user at a keyboard
// would: it reads the screen, waits for prompts and types answers.
type Terminal struct {
	t      testing.TB
	cmd    *exec.Cmd // the binary's process; nil in-process
	exited chan int  // in-process: the exit code, once it ran
	tty    *os.File  // the terminal's master side
	mu     sync.Mutex
	seen   bytes.Buffer
	pos    int           // screen offset after the last Expect
	shut   chan struct{} // closed when the screen has been read to its end
}

// winsize is the terminal's size.
var winsize = &pty.Winsize{Rows: 40, Cols: 120}

// StartTerminal starts gh-ocdx with args on a 120×40 terminal: in-process
// when the package set InProcessTerminal, else the binary. Ctrl-C typed at
// a prompt reaches either; a signal (Signal, or Ctrl-C typed while no prompt
// is open) reaches only the binary, which StartBinaryTerminal starts.
func (e *Env) StartTerminal(t testing.TB, args ...string) *Terminal {
	t.Helper()
	if InProcessTerminal == nil {
		return e.StartBinaryTerminal(t, args...)
	}
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(master, winsize); err != nil {
		t.Fatal(err)
	}
	tm := &Terminal{t: t, tty: master, exited: make(chan int, 1), shut: make(chan struct{})}
	go func() {
		code := InProcessTerminal(t, e, tty, args)
		tty.Close() // the screen's reader then meets its end
		tm.exited <- code
	}()
	t.Cleanup(func() { master.Close() })
	go tm.read()
	return tm
}

// StartBinaryTerminal starts the built binary with args on a 120×40
// terminal, as its own process.
func (e *Env) StartBinaryTerminal(t testing.TB, args ...string) *Terminal {
	t.Helper()
	return e.StartProgramTerminal(t, Binary(t), args...)
}

// StartProgramTerminal starts prog (gh, say, which runs the extension) with
// args on a 120×40 terminal, as its own process.
func (e *Env) StartProgramTerminal(t testing.TB, prog string, args ...string) *Terminal {
	t.Helper()
	c := exec.Command(prog, args...)
	c.Dir, c.Env = e.Dir, append(e.List(), "TERM=xterm")
	tty, err := pty.StartWithSize(c, winsize)
	if err != nil {
		t.Fatal(err)
	}
	tm := &Terminal{t: t, cmd: c, tty: tty, shut: make(chan struct{})}
	t.Cleanup(func() { _ = c.Process.Kill(); tty.Close() })
	go tm.read()
	return tm
}

// read copies the screen and answers cursor position queries, which survey
// sends and waits on, as a terminal would.
func (tm *Terminal) read() {
	defer close(tm.shut)
	buf := make([]byte, 4096)
	answered := 0
	for {
		n, err := tm.tty.Read(buf)
		tm.mu.Lock()
		tm.seen.Write(buf[:n])
		asked := strings.Count(tm.seen.String(), "\x1b[6n")
		tm.mu.Unlock()
		for ; answered < asked; answered++ {
			_, _ = tm.tty.Write([]byte("\x1b[1;1R"))
		}
		if err != nil {
			return
		}
	}
}

// Screen is everything shown so far.
func (tm *Terminal) Screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.seen.String()
}

// Expect waits until want appears after what earlier Expects matched.
func (tm *Terminal) Expect(want string) {
	tm.t.Helper()
	deadline := time.Now().Add(raceScale * 20 * time.Second)
	for {
		s := tm.Screen()
		if i := strings.Index(s[tm.pos:], want); i >= 0 {
			tm.pos += i + len(want)
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("no %q on the screen after %s (what it shows, %d bytes, last match at %d):\n%s", want, raceScale*20*time.Second, len(s), tm.pos, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Send types keys once the screen has been still for a moment: the prompt
// is drawn and waiting in raw mode, however loaded the machine is.
func (tm *Terminal) Send(keys string) {
	tm.t.Helper()
	last, still := -1, time.Now()
	for deadline := time.Now().Add(raceScale * 5 * time.Second); time.Now().Before(deadline); time.Sleep(25 * time.Millisecond) {
		n := len(tm.Screen())
		if n != last {
			last, still = n, time.Now()
		} else if time.Since(still) >= 150*time.Millisecond {
			break
		}
	}
	if _, err := tm.tty.Write([]byte(keys)); err != nil {
		tm.t.Fatal(err)
	}
}

// Interrupt types Ctrl-C at once, as a user does while work runs and no
// prompt is open: the terminal turns it into SIGINT. Send would wait for a
// still screen, which a live progress line never is.
func (tm *Terminal) Interrupt() {
	tm.t.Helper()
	if _, err := tm.tty.Write([]byte(CtrlC)); err != nil {
		tm.t.Fatal(err)
	}
}

// Wait waits for the program to exit and returns its exit code, with the
// screen read to its end: output still in the terminal when the program
// exits is on the screen too.
func (tm *Terminal) Wait() int {
	tm.t.Helper()
	if tm.cmd == nil {
		select {
		case code := <-tm.exited:
			select {
			case <-tm.shut:
			case <-time.After(raceScale * 5 * time.Second):
			}
			return code
		case <-time.After(raceScale * 30 * time.Second):
			tm.t.Fatalf("still running:\n%s", tm.Screen())
			return -1
		}
	}
	done := make(chan error, 1)
	go func() { done <- tm.cmd.Wait() }()
	select {
	case err := <-done:
		select {
		case <-tm.shut: // the read ends once the program's side is closed and drained
		case <-time.After(raceScale * 5 * time.Second):
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			tm.t.Fatal(err)
		}
		return 0
	case <-time.After(raceScale * 30 * time.Second):
		_ = tm.cmd.Process.Kill()
		tm.t.Fatalf("still running:\n%s", tm.Screen())
		return -1
	}
}

// Signal sends sig to the program, as kill(1) from another terminal would:
// unlike Ctrl-C typed at a prompt, it does not go through the terminal.
func (tm *Terminal) Signal(sig os.Signal) {
	tm.t.Helper()
	if tm.cmd == nil {
		tm.t.Fatal("an in-process run gets no signals: start the binary with StartBinaryTerminal")
	}
	if err := tm.cmd.Process.Signal(sig); err != nil {
		tm.t.Fatal(err)
	}
}
