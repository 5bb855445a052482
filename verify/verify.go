// Package verify runs a repository's verify commands without a shell and
// without the credentials, keeping the tail of their output (the fix phase,
// docs/architecture.md, A round of review-loop), and its analyzers the same
// way (Capture, for package analyzer). preflight uses it to check that they
// exist before a run starts.
package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/ocdx/gh-ocdx/git"
)

// Result is the outcome of one verify command.
type Result struct {
	Command  string        `json:"command"`
	OK       bool          `json:"ok"`
	ExitCode int           `json:"exitCode"` // -1 when it could not start or was stopped
	Duration time.Duration `json:"duration,omitempty"`
	Tail     string        `json:"output,omitempty"` // the last TailBytes of its output; dropped on decay
}

// TailBytes bounds the output kept per command: enough for the agent to see
// the failure, small enough for its context.
const TailBytes = 8 << 10

// SplitCommand turns a verify entry ("go test ./...") into argv. Quotes are
// honoured; nothing is expanded, and no shell ever runs it.
func SplitCommand(command string) ([]string, error) {
	argv, err := shellquote.Split(command)
	if err != nil {
		return nil, fmt.Errorf("verify command %q: %v", command, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("verify command %q is empty", command)
	}
	return argv, nil
}

// Missing lists the verify commands whose executable is not on PATH
// (preflight refuses to start while one is missing).
func Missing(commands []string) []string {
	var missing []string
	for _, c := range commands {
		argv, err := SplitCommand(c)
		if err != nil {
			missing = append(missing, c)
			continue
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			missing = append(missing, c)
		}
	}
	return missing
}

// Problems says, for each command that cannot start here, why: its
// program is not on PATH, or, named by a path, not an executable file
// (relative paths are from root, where the commands run).
func Problems(root string, cmds []string, from string) []string {
	var out []string
	for i, c := range cmds {
		where := fmt.Sprintf("verify[%d] %q (%s)", i, c, from)
		argv, err := SplitCommand(c)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		if p := ProgramProblem(root, argv[0]); p != "" {
			out = append(out, where+": "+p)
		}
	}
	return out
}

// ProgramProblem says why the program prog cannot start in root, with the
// fix: not on PATH, or, named by a path (relative to root), not an
// executable file; "" when it can.
func ProgramProblem(root, prog string) string {
	if !strings.ContainsRune(prog, '/') {
		if _, err := exec.LookPath(prog); err != nil {
			return prog + " is not on PATH; install it, or change the command"
		}
		return ""
	}
	path := prog
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("there is no %s; correct the path (relative paths start at the repository's root)", path)
	case err != nil:
		return err.Error()
	case st.IsDir() || st.Mode()&0o111 == 0:
		return fmt.Sprintf("%s is not an executable file; make it one (chmod +x %s), or run it through its interpreter (sh %s)", path, prog, prog)
	}
	return ""
}

// Run runs the commands in dir one after another, streaming their output
// to stream, and stops at the first failure. It reports whether all passed.
// Cancelling ctx stops the running command and its children.
func Run(ctx context.Context, dir string, commands []string, stream io.Writer) ([]Result, bool) {
	var results []Result
	for _, c := range commands {
		v := runOne(ctx, dir, c, stream)
		results = append(results, v)
		if !v.OK {
			return results, false
		}
	}
	return results, true
}

func runOne(ctx context.Context, dir, command string, stream io.Writer) Result {
	v := Result{Command: command, ExitCode: -1}
	argv, err := SplitCommand(command)
	if err != nil {
		v.Tail = err.Error()
		return v
	}
	return RunArgv(ctx, dir, command, argv, stream)
}

// RunArgv runs argv in dir without a shell, streaming its output and keeping
// its tail; command is how it is shown. It never gets the credentials: the
// code it runs is the agent's to edit, and verification needs no GitHub or
// model access.
func RunArgv(ctx context.Context, dir, command string, argv []string, stream io.Writer) Result {
	return RunCmd(ctx, command, confined(ctx, dir, argv), stream)
}

// Capture runs argv in dir confined as RunArgv runs a verify command, its
// standard output written to stdout instead of the stream: an analyzer's
// results (docs/architecture.md, Evidence). Its standard error is streamed
// and its tail kept.
func Capture(ctx context.Context, dir, command string, argv []string, stdout, stream io.Writer) Result {
	c := confined(ctx, dir, argv)
	c.Stdout = stdout
	return RunCmd(ctx, command, c, stream)
}

// confined is argv to run in dir: no shell, and none of the credentials.
func confined(ctx context.Context, dir string, argv []string) *exec.Cmd {
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Dir, c.Env = dir, git.WithoutCredentials(os.Environ())
	return c
}

// RunCmd runs c (its directory and environment set), streaming its output
// and keeping its tail; a standard output c has already is left to it.
func RunCmd(ctx context.Context, command string, c *exec.Cmd, stream io.Writer) Result {
	v := Result{Command: command, ExitCode: -1}
	tail := &tailBuffer{max: TailBytes}
	out := io.MultiWriter(stream, tail)
	fmt.Fprintf(stream, "$ %s\n", command)
	if c.Stdout == nil {
		c.Stdout = out
	}
	c.Stderr = out
	killGroup(c)
	c.WaitDelay = 5 * time.Second
	start := time.Now()
	err := c.Run()
	v.Duration = time.Since(start)
	var exit *exec.ExitError
	switch {
	case err == nil:
		v.OK, v.ExitCode = true, 0
	case ctx.Err() != nil:
		fmt.Fprintf(tail, "\n[stopped: %v]\n", ctx.Err())
	case errors.As(err, &exit):
		v.ExitCode = exit.ExitCode()
	default:
		fmt.Fprintf(tail, "\n[could not run %q: %v]\n", command, err)
	}
	v.Tail = tail.String()
	return v
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.ToValidUTF8(string(t.buf), "")
	if t.cut {
		return "[… earlier output cut]\n" + s
	}
	return s
}
