// Package testkit holds the fakes and fixtures the tests run gh-ocdx against:
// the built binary with a clean environment, a TLS fake GitHub, a fake model
// server and git fixtures. It is imported by tests, and by the demo
// (go run ./demo), which runs gh-ocdx against the same fakes; never by
// the extension itself.
package testkit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// ModuleRoot is the directory holding go.mod.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Binary builds the gh-ocdx binary once per test process and returns its
// path. It lives in a directory named gh-ocdx, as `gh extension install .`
// expects, in the user's cache directory, one per checkout: go build then
// links again only when the source changed (a link is a second of CPU for
// every test process that runs the binary), and a test run leaves no
// 20 MB binary behind in the temporary directory.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		sum := sha256.Sum256([]byte(ModuleRoot()))
		dir := filepath.Join(cache, "gh-ocdx-tests", hex.EncodeToString(sum[:6]))
		if err := os.MkdirAll(filepath.Join(dir, "gh-ocdx"), 0o755); err != nil {
			buildErr = err
			return
		}
		// Test processes of several packages build at once: one at a
		// time, so none writes the binary while another runs it.
		unlock, err := lockFile(filepath.Join(dir, "build.lock"))
		if err != nil {
			buildErr = err
			return
		}
		defer unlock()
		binPath = filepath.Join(dir, "gh-ocdx", "gh-ocdx")
		c := exec.Command("go", "build", "-o", binPath, ".")
		c.Dir = ModuleRoot()
		if out, err := c.CombinedOutput(); err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Env is a clean environment for running the binary: HOME, XDG directories,
// GH_CONFIG_DIR, OCDX_CONFIG and OCDX_STATE_DIR point into a temp directory,
// and nothing of the developer's own setup leaks in.
type Env struct {
	Root string            // the temp directory everything lives in
	Dir  string            // working directory of runs (default Root)
	Vars map[string]string // the environment, without the parent's
}

// NewEnv returns a clean environment under t.TempDir().
func NewEnv(t T) *Env {
	t.Helper()
	root := t.TempDir()
	e := &Env{Root: root, Dir: root, Vars: map[string]string{
		"PATH":                            os.Getenv("PATH"),
		"HOME":                            filepath.Join(root, "home"),
		"XDG_CONFIG_HOME":                 filepath.Join(root, "home", ".config"),
		"XDG_STATE_HOME":                  filepath.Join(root, "home", ".local", "state"),
		"XDG_CACHE_HOME":                  filepath.Join(root, "home", ".cache"),
		"XDG_DATA_HOME":                   filepath.Join(root, "home", ".local", "share"),
		"GH_CONFIG_DIR":                   filepath.Join(root, "home", ".config", "gh"),
		"OCDX_CONFIG":                     filepath.Join(root, "home", ".config", "gh-ocdx", "config.json"),
		"OCDX_STATE_DIR":                  filepath.Join(root, "state"),
		"NO_COLOR":                        "1",
		"GH_NO_UPDATE_NOTIFIER":           "1",
		"GH_NO_EXTENSION_UPDATE_NOTIFIER": "1",
		"GH_PROMPT_DISABLED":              "1",
		"GIT_CONFIG_NOSYSTEM":             "1",
		"GIT_AUTHOR_NAME":                 "ocdx test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "ocdx test", "GIT_COMMITTER_EMAIL": "test@example.com",
	}}
	for _, kv := range GitQuiet {
		k, v, _ := strings.Cut(kv, "=")
		e.Vars[k] = v
	}
	for _, d := range []string{"home", "state"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// Set sets one variable; an empty value removes it.
func (e *Env) Set(k, v string) {
	if v == "" {
		delete(e.Vars, k)
		return
	}
	e.Vars[k] = v
}

// WriteConfig writes body as the configuration file ($OCDX_CONFIG).
func (e *Env) WriteConfig(t T, body string) {
	t.Helper()
	path := e.Vars["OCDX_CONFIG"]
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// List returns the environment as KEY=VALUE pairs, sorted.
func (e *Env) List() []string {
	out := make([]string, 0, len(e.Vars))
	for k, v := range e.Vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Result is what one run of the binary produced.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// InProcess runs gh-ocdx in the test's own process, in e with stdin. A
// test package that can (cmd's, from its TestMain) sets it, and Env.Run
// then uses it instead of the built binary: the same verbs, without a
// process per run. What is about the process itself (signals, a
// terminal, the environment of the commands gh-ocdx starts) stays with the
// binary, in e2e.
var InProcess func(t testing.TB, e *Env, stdin io.Reader, args []string) Result

// Run runs gh-ocdx with args and no stdin, in-process when the package set
// InProcess, else the built binary; either waits at most two minutes.
func (e *Env) Run(t testing.TB, args ...string) Result {
	t.Helper()
	if InProcess != nil {
		return InProcess(t, e, nil, args)
	}
	return e.RunBinary(t, args...)
}

// RunBinary runs the built gh-ocdx binary with args and no stdin: for what
// is about the process (its version, its environment, its directory).
func (e *Env) RunBinary(t testing.TB, args ...string) Result {
	t.Helper()
	return e.RunWith(t, nil, Binary(t), args...)
}

// RunWith runs any program (the binary, or gh itself) in this environment.
func (e *Env) RunWith(t testing.TB, stdin io.Reader, prog string, args ...string) Result {
	t.Helper()
	var out, errOut bytes.Buffer
	c := exec.Command(prog, args...)
	c.Dir, c.Env, c.Stdin, c.Stdout, c.Stderr = e.Dir, e.List(), stdin, &out, &errOut
	c.WaitDelay = 5 * time.Second
	if err := c.Start(); err != nil {
		t.Fatalf("start %s: %v", prog, err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { _ = c.Process.Kill() })
	defer timer.Stop()
	err := c.Wait()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s %s: %v", prog, strings.Join(args, " "), err)
	}
	return Result{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// AllowParallel lets up to n of a package's parallel tests run at once
// rather than one per core, unless -parallel was given: for tests that wait
// on sockets, processes and timers more than they compute. Call it from
// TestMain, before m.Run.
func AllowParallel(n int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
