package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/cmd"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// TestMain makes this process what testkit.Env gives the binary: it trusts
// the fake GitHub, and the git commands gh-ocdx starts read no
// configuration of the developer's. testkit.Env.Run then runs the verbs
// in-process (runInProcess); a test about the process itself (signals, a
// terminal, the environment of the commands gh-ocdx starts, gh running the
// extension) runs testkit.Binary.
func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	defer testkit.TempInMemory()()
	cleanup, err := testkit.TrustFakeGitHub()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	// Git reads neither the developer's global nor the system configuration
	// (HOME stays: go build, for the tests that run the binary, needs it).
	global, err := os.CreateTemp("", "ocdx-gitconfig-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	global.Close()
	defer os.Remove(global.Name())
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": global.Name(), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "ocdx test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "ocdx test", "GIT_COMMITTER_EMAIL": "test@example.com",
		// The fix agent's commits get the ids the fix tests script
		// (newFixSetupFiles sets the same dates for the binary).
		"GIT_AUTHOR_DATE": fixDate, "GIT_COMMITTER_DATE": fixDate,
		// What testkit.Env gives the binary, for the terminal's colours.
		"NO_COLOR": "1", "TERM": "xterm",
	} {
		os.Setenv(k, v)
	}
	for _, kv := range testkit.GitQuiet {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	testkit.InProcess = runInProcess
	testkit.InProcessTerminal = runOnTerminal
	// The tests wait on sockets, git and timers more than they compute: with
	// four at a time rather than one per core, the package takes about half
	// the time on two cores.
	testkit.AllowParallel(4)
	return m.Run()
}

// runInProcess runs gh ocdx as the binary would in e, with stdin and the
// output captured (runInProcessOn).
func runInProcess(t testing.TB, e *testkit.Env, stdin io.Reader, args []string) testkit.Result {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errOut testkit.Buffer
	ios := &cmdutil.IOStreams{In: stdin, Out: text.Writer{W: &out}, ErrOut: text.Writer{W: &errOut}}
	code := runInProcessOn(e, ios, args, &cmdutil.Deps{IO: ios, Log: log.NewWithOptions(ios.TerminalErr(), log.Options{Level: log.InfoLevel})})
	return testkit.Result{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// runOnTerminal runs gh ocdx on tty as the binary would on a terminal.
func runOnTerminal(t testing.TB, e *testkit.Env, tty *os.File, args []string) int {
	ios := cmdutil.Streams(tty, tty, tty)
	return runInProcessOn(e, ios, args, cmdutil.NewDeps("test", ios))
}

// runInProcessOn runs gh ocdx with d as the binary would in e: its
// variables through Getenv, its directory as the work directory, and the
// exit code and the "error:" line of Execute; it gives up after two
// minutes as Env.Run does.
func runInProcessOn(e *testkit.Env, ios *cmdutil.IOStreams, args []string, d *cmdutil.Deps) int {
	vars := e.Vars
	d.Getenv = func(k string) string { return vars[k] }
	d.WorkDir = e.Dir
	d.Version = "test"
	// The retries are what the tests check, not how long they wait: the
	// real waits (a second and more) are the clients' unit tests' business.
	d.Backoff = 5 * time.Millisecond
	// go-gh reads the git remotes of the process's directory.
	d.BaseRepo = func() (repository.Repository, error) {
		return repository.Repository{}, errors.New("an in-process run takes its repository from GH_REPO or -R: a test of the remotes runs testkit.Binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return cmd.Execute(ctx, args, d)
}
