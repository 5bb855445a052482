package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The demo, as a newcomer runs it from a clone: it says first that
// everything is local, shows gh-ocdx's run through the finding, the fix
// and the re-review to "converged", then what was posted and pushed; it
// exits 0 and leaves nothing behind — no temporary directory, nothing in
// the checkout, nothing in HOME — and needs no network beyond loopback
// (no module download: GOPROXY=off).
func TestDemoRunsAReviewLoopToConvergedAndLeavesNothing(t *testing.T) {
	home, tmp := isolate(t)
	checkout := gitStatus(t)

	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a first build compiles all of gh-ocdx
	defer cancel()
	code := run(ctx, &out, &errOut)

	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	stdout, stderr := out.String(), errOut.String()
	if !strings.HasPrefix(stdout, "gh-ocdx demo") || !strings.Contains(stdout, "No real GitHub, no real model, nothing posted anywhere.") {
		t.Errorf("the demo does not open with what it is:\n%s", stdout)
	}
	for _, want := range []string{
		"$ gh ocdx review-loop 7 --yes",
		"# review-loop: PR #7 — converged",
		"## Round 2",
		// What was posted: the finding on its line, the fix, the approval.
		"↳ inline comment on cache.go:3",
		"Cache size can be changed by any importer",
		// The fix, as pushed.
		"-var Size = 10\n  +const Size = 10",
		"gh-ocdx fix report",
		"round 2 of 3",
		"the thread on cache.go:3 is resolved",
		"Commits pushed to the fake remote (feature/cache)",
		"the README's Quick start",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{
		"reviewer-1 (openai/reviewer-a): request_changes, 1 finding",
		"pushing 1 commit to origin feature/cache",
		"run ended, converged",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// The fix commit, pushed after round 1, is the head round 2 reviewed.
	pushed := regexp.MustCompile(`(?m)^  ([0-9a-f]{7}) fix: `).FindStringSubmatch(stdout)
	if pushed == nil || !strings.Contains(stdout, "## Round 2 — head "+pushed[1]) {
		t.Errorf("no fix commit pushed and re-reviewed:\n%s", stdout)
	}

	leftNothing(t, home, tmp, checkout)

	// A second run shows the same, but for the fakes' ports, the run's id
	// and token counts.
	var again bytes.Buffer
	if code := run(ctx, &again, io.Discard); code != 0 {
		t.Fatalf("second run: exit %d", code)
	}
	if a, b := steady(stdout), steady(again.String()); a != b {
		t.Errorf("the second run shows something else:\n%s\nthe first:\n%s", b, a)
	}
}

var unsteady = regexp.MustCompile(`127\.0\.0\.1:\d+|\*\*Run:\*\* \S+|Tokens: .*`)

// steady is the demo's output without what changes from run to run.
func steady(s string) string { return unsteady.ReplaceAllString(s, "…") }

// Ctrl-C in the middle of the review-loop stops gh-ocdx as it stops in
// any terminal, and the demo still removes everything it made.
func TestDemoInterruptedLeavesNothing(t *testing.T) {
	home, tmp := isolate(t)
	checkout := gitStatus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a first build compiles all of gh-ocdx
	defer cancel()
	// The interrupt comes when gh-ocdx says round 1 started: what
	// signal.NotifyContext in main makes of a Ctrl-C.
	errOut := &watch{s: "round 1 of 3", seen: cancel}

	code := run(ctx, io.Discard, errOut)

	if !strings.Contains(errOut.String(), "round 1 of 3") {
		t.Fatalf("exit %d before round 1:\n%s", code, errOut.String())
	}
	if code == 0 || !strings.Contains(errOut.String(), "demo interrupted") {
		t.Errorf("exit %d, and the demo does not say it was interrupted:\n%s", code, errOut.String())
	}
	leftNothing(t, home, tmp, checkout)
}

// isolate gives the demo a fresh HOME and temporary directory, to see
// what it leaves in them, and no credential or module proxy: it needs no
// network beyond loopback (GOPROXY=off: no module download either). Go's
// own caches and configuration (its telemetry counters) stay where they
// are.
func isolate(t *testing.T) (home, tmp string) {
	t.Helper()
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH"}
	out, err := exec.Command("go", append([]string{"env"}, keys...)...).Output()
	vals := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if err != nil || len(vals) != len(keys) {
		t.Fatalf("go env %v: %v\n%s", keys, err, out)
	}
	for i, k := range keys {
		t.Setenv(k, vals[i])
	}
	config, err := os.UserConfigDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", config)
	home, tmp = t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("TMPDIR", tmp)
	for _, k := range []string{"GH_TOKEN", "GITHUB_TOKEN", "GH_HOST", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST"} {
		t.Setenv(k, "")
	}
	t.Setenv("GOPROXY", "off")
	return home, tmp
}

// leftNothing checks that the demo left nothing in HOME, in the
// temporary directory or in the checkout (whose status was checkout).
func leftNothing(t *testing.T, home, tmp, checkout string) {
	t.Helper()
	for dir, what := range map[string]string{tmp: "the temporary directory", home: "HOME"} {
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("the demo left %v in %s", names(left), what)
		}
	}
	if after := gitStatus(t); after != checkout {
		t.Errorf("the demo changed the checkout:\n%s\nwas:\n%s", after, checkout)
	}
}

// watch is a writer that calls seen once what is written holds s.
type watch struct {
	mu   sync.Mutex
	b    bytes.Buffer
	s    string
	seen func()
}

func (w *watch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.b.Write(p)
	if w.seen != nil && strings.Contains(w.b.String(), w.s) {
		w.seen()
		w.seen = nil
	}
	return n, err
}

func (w *watch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// gitStatus is the checkout's status, untracked and ignored files included.
func gitStatus(t *testing.T) string {
	t.Helper()
	c := exec.Command("git", "status", "--porcelain", "--ignored", "--untracked-files=all")
	c.Dir = filepath.Join("..")
	out, err := c.Output()
	if err != nil {
		t.Skipf("git status: %v", err)
	}
	return string(out)
}

func names(es []os.DirEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
