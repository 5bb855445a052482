// Command demo shows a whole review-loop of gh-ocdx — review, inline
// comment, fix, verify, push, re-review, converged — on a built-in example
// pull request, offline: `go run ./demo` from a clone. gh-ocdx itself is
// the real one, built into a temporary directory and run as a user runs
// it; what it talks to are the fakes the tests use (internal/testkit): a
// TLS fake GitHub, scripted reviewer models, a scripted fix model and a
// bare git remote, all on this machine. Nothing is posted anywhere, no key
// or login is needed, and the temporary directory is removed at the end,
// also on Ctrl-C (docs/architecture.md, The verbs and their tests).
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// The example PR: acme/widgets#7 on branch feature/cache (testkit.NewLoopPR).
const (
	repo   = "acme/widgets"
	number = 7
)

// config is the user's configuration the demo writes: two reviewers, the
// comments analyzer and the fix agent, all served by the fakes, and a
// verify command that always passes.
const config = `{
  "reviewerModels": ["openai/reviewer-a", "anthropic/reviewer-b"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "verify": ["true"]
}`

// commitDate makes the example's commits, and so their ids, the same on
// every run.
const commitDate = "2026-01-01T12:00:00Z"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The fakes' servers log a connection that a stopped gh-ocdx cut.
	log.SetOutput(io.Discard)
	code := run(ctx, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the demo and returns its exit code: gh-ocdx's, 1 when the demo
// could not set itself up, 130 when ctx ended (Ctrl-C).
func run(ctx context.Context, out, errOut io.Writer) (code int) {
	fmt.Fprint(out, banner)
	root, err := os.MkdirTemp("", "gh-ocdx-demo-")
	if err != nil {
		fmt.Fprintln(errOut, "demo:", err)
		return 1
	}
	fx := &fixtures{root: root, errOut: errOut}
	defer func() {
		r := recover()
		fx.close()
		if err := os.RemoveAll(root); err != nil {
			fmt.Fprintln(errOut, "demo:", err)
		}
		f, ok := r.(fatal)
		switch {
		case r != nil && !ok:
			panic(r)
		case ctx.Err() != nil:
			// gh-ocdx offers to resume, but the example PR is gone.
			fmt.Fprintln(errOut, "demo interrupted: the example PR, its fakes and the temporary directory are removed")
			code = 130
		case ok:
			fmt.Fprintln(errOut, "demo:", string(f))
			code = 1
		case fx.failed() && code == 0:
			code = 1
		}
	}()
	isolateGit(fx, root)

	l := testkit.NewLoopPR(fx, repo, number, nil)
	l.Env.WriteConfig(fx, config)
	for _, k := range []string{"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"} {
		l.Env.Set(k, commitDate)
	}
	start := l.Repo.RemoteOID(fx, l.Repo.Head)
	script(l.Models, l.Fix)
	fmt.Fprintln(out, "gh-ocdx's configuration, ~/.config/gh-ocdx/config.json in a temporary HOME:")
	indent(out, "  ", config)
	fmt.Fprintln(out)

	bin, err := build(ctx, root, errOut)
	if err != nil {
		fx.Fatal(err)
	}
	args := []string{"review-loop", strconv.Itoa(number), "--yes"}
	fmt.Fprintf(out, "$ gh ocdx %s\n\n", strings.Join(args, " "))
	if code, err = ghOcdx(ctx, bin, l.Env, out, errOut, args); err != nil {
		fx.Fatal(err)
	}
	if ctx.Err() == nil {
		posted(out, fx, l, start)
		fmt.Fprint(out, next)
	}
	return code
}

// next says how to go from the demo to a real pull request.
const next = `That was the demo. For your own pull requests, the README's Quick start:
log gh in, install the extension, gh ocdx config init, your models' keys,
then gh ocdx review-pr <number> (one model, with you) or gh ocdx review-loop.
`

// banner says what the demo is before anything runs.
const banner = `gh-ocdx demo — a review-loop on an example pull request, offline.
Everything here is local and made up: a fake GitHub on 127.0.0.1 holding the
PR acme/widgets#7, scripted reviewer and fix models, a git remote in a
temporary directory. No real GitHub, no real model, nothing posted anywhere.
The gh-ocdx that runs is the real one, built from this checkout.

`

// isolateGit keeps the git commands of the demo and of gh-ocdx from the
// user's own git configuration (a signing key, hooks) and gives them an
// identity and fixed dates; the variables are restored at the end.
func isolateGit(fx *fixtures, root string) {
	global := filepath.Join(root, "gitconfig")
	if err := os.WriteFile(global, nil, 0o600); err != nil {
		fx.Fatal(err)
	}
	for k, v := range map[string]string{"GIT_CONFIG_GLOBAL": global, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_DATE": commitDate, "GIT_COMMITTER_DATE": commitDate} {
		fx.setenv(k, v)
	}
}

// script tells the models what to answer. Round 1: reviewer-a finds that
// any importer can change the cache's size (P1, on the line that declares
// it), reviewer-b approves; the fix model makes it a constant and commits.
// Round 2, on the fixed head: both approve, and the loop has converged.
func script(m *testkit.FakeModel, fix *testkit.FixModel) {
	mutable := map[string]any{"id": "R1", "priority": "P1", "category": "quality", "file": "cache.go", "line": 3,
		"title":       "Cache size can be changed by any importer",
		"description": "`Size` is an exported variable: any package can set it to 0 or to a million at run time, and the cache follows.",
		"suggestion":  "Make `Size` a constant."}
	m.Script("reviewer-a", reviewer("reviewer-1", "request_changes", mutable), reviewer("reviewer-1", "approve"))
	m.Script("reviewer-b", reviewer("reviewer-2", "approve"), reviewer("reviewer-2", "approve"))
	m.Script("analyzer", analyzer(), analyzer())
	fix.Mu.Lock()
	defer fix.Mu.Unlock()
	fix.Edit = func(int) (string, string) {
		return "cache.go", "package cache\n\nconst Size = 10\n\nfunc Get(k string) string { return k }\n"
	}
}

// reviewer is a reviewer's answer: its result envelope.
func reviewer(agent, conclusion string, findings ...map[string]any) testkit.Step {
	if findings == nil {
		findings = []map[string]any{}
	}
	return envelope(map[string]any{"agent": agent, "prNumber": number, "conclusion": conclusion,
		"issues":   map[string]int{"p0_blocking": 0, "p1_critical": len(findings), "p2_important": 0, "p3_suggestion": 0},
		"findings": findings, "fullReport": "Read the diff of cache.go."})
}

// analyzer is the comments analyzer's answer: no review thread is pending.
func analyzer() testkit.Step {
	return envelope(map[string]any{"agent": "comments-analyzer", "prNumber": number,
		"reviewState": map[string]any{"hasChangesRequested": false, "changesRequestedBy": []any{}},
		"stats":       map[string]int{"totalThreads": 0, "resolvedThreads": 0, "unresolvedThreads": 0}, "threadsTruncated": false,
		"issues":        map[string]int{"p0_blocking": 0, "p1_critical": 0, "p2_important": 0, "p3_suggestion": 0},
		"pendingIssues": []any{}, "fullReport": "No review threads yet."})
}

func envelope(v map[string]any) testkit.Step {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return testkit.Reply("BEGIN_JSON\n" + string(b) + "\nEND_JSON")
}

// build builds gh-ocdx from this checkout into root.
func build(ctx context.Context, root string, errOut io.Writer) (string, error) {
	src := testkit.ModuleRoot()
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		return "", fmt.Errorf("run the demo from a clone of gh-ocdx (go run ./demo): %w", err)
	}
	fmt.Fprintln(errOut, "building gh-ocdx from this checkout…")
	bin := filepath.Join(root, "bin", "gh-ocdx")
	// Go's temporary files go into root too: a build stopped by Ctrl-C
	// leaves its work directory behind.
	tmp := filepath.Join(root, "go-tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return "", err
	}
	if err := os.Mkdir(filepath.Dir(bin), 0o700); err != nil {
		return "", err
	}
	// go run keeps the linked executable in Go's build cache, go build -o
	// does not: built this way, a second demo from an unchanged checkout
	// copies gh-ocdx instead of linking it again (a link is most of the
	// demo's time). -exec makes the run a copy into root.
	c := exec.CommandContext(ctx, "go", "run", "-exec", "cp", ".", bin)
	c.Dir, c.Env = src, append(os.Environ(), "GOTMPDIR="+tmp)
	interruptible(c)
	if b, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, b)
	}
	return bin, nil
}

// ghOcdx runs gh-ocdx as a user would, in the fakes' environment
// (testkit.Env: its own HOME, gh and gh-ocdx configuration and state, the
// fake GitHub's host, token and certificate, the models' base URLs), in
// the example's clone.
func ghOcdx(ctx context.Context, bin string, env *testkit.Env, out, errOut io.Writer, args []string) (int, error) {
	c := exec.CommandContext(ctx, bin, args...)
	c.Dir, c.Env, c.Stdout, c.Stderr = env.Dir, env.List(), out, errOut
	interruptible(c)
	err := c.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	return 0, err
}

// interruptible makes the end of c's context an interrupt, as Ctrl-C is
// in a terminal, with ten seconds to stop before it is killed.
func interruptible(c *exec.Cmd) {
	c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
	c.WaitDelay = 10 * time.Second
}

// posted shows what gh-ocdx left on the fake PR and pushed to the fake
// remote, as a reader of the PR would see it.
func posted(out io.Writer, fx *fixtures, l *testkit.LoopPR, start string) {
	fmt.Fprintf(out, "\n── What gh-ocdx posted on the fake PR %s#%d ──\n", repo, number)
	var items []item
	for _, r := range l.GitHub.Reviews(repo, number) {
		items = append(items, item{id: r.ID, what: "review (" + strings.ToLower(strings.ReplaceAll(r.Event, "_", " ")) + ")", body: r.Body, inline: r.Comments})
	}
	for _, c := range l.GitHub.Comments(repo, number) {
		items = append(items, item{id: c.ID, what: "comment", body: c.Body})
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(a.id, b.id) })
	for _, it := range items {
		fmt.Fprintf(out, "\n• %s\n", it.what)
		indent(out, "    ", brief(it.body, 12))
		for _, ic := range it.inline {
			fmt.Fprintf(out, "    ↳ inline comment on %s:%d\n", ic.Path, ic.Line)
			indent(out, "      ", brief(ic.Body, 6))
		}
	}
	for _, th := range l.GitHub.Threads(repo, number) {
		if th.Resolved && len(th.Comments) > 0 {
			fmt.Fprintf(out, "\n• the thread on %s:%d is resolved\n", th.Comments[0].Path, th.Comments[0].Line)
		}
	}
	fmt.Fprintf(out, "\n── Commits pushed to the fake remote (%s) ──\n", l.Repo.Head)
	commits := testkit.Git(fx, l.Repo.Remote, "log", "--format=%h %s", start+".."+l.Repo.Head)
	if commits == "" {
		commits = "(none)"
	}
	indent(out, "  ", commits)
	if commits != "(none)" {
		fmt.Fprintln(out)
		indent(out, "  ", testkit.Git(fx, l.Repo.Remote, "diff", start, l.Repo.Head))
	}
	fmt.Fprintln(out)
}

// item is one post on the PR, in the order it was made.
type item struct {
	id     int64
	what   string
	body   string
	inline []testkit.PostedReviewComment
}

var hidden = regexp.MustCompile(`(?s)<!--.*?-->`)

// brief is a post's first lines without its hidden markers, at most n.
func brief(body string, n int) string {
	var lines []string
	for _, l := range strings.Split(hidden.ReplaceAllString(body, ""), "\n") {
		if l = strings.TrimRight(l, " "); l == "" {
			continue
		}
		if len(lines) == n {
			lines = append(lines, "…")
			break
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

func indent(out io.Writer, prefix, s string) {
	for _, l := range strings.Split(s, "\n") {
		fmt.Fprintln(out, prefix+l)
	}
}

// fixtures is what the test kit needs of a test (testkit.T), for a
// program: temporary directories under one root, cleanups run at the end,
// a fatal error that ends the demo, and errors of the fakes reported.
type fixtures struct {
	root   string
	errOut io.Writer

	mu       sync.Mutex
	dirs     int
	cleanups []func()
	errs     int
}

// fatal is a fixture's failure; run recovers it.
type fatal string

func (f *fixtures) Helper()                           {}
func (f *fixtures) Fatal(args ...any)                 { panic(fatal(fmt.Sprint(args...))) }
func (f *fixtures) Fatalf(format string, args ...any) { panic(fatal(fmt.Sprintf(format, args...))) }

// Errorf reports a fake's complaint (it may come from a server's
// goroutine); the demo then fails.
func (f *fixtures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs++
	fmt.Fprintf(f.errOut, "demo: "+format+"\n", args...)
}

func (f *fixtures) failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.errs > 0
}

func (f *fixtures) TempDir() string {
	f.mu.Lock()
	f.dirs++
	dir := filepath.Join(f.root, strconv.Itoa(f.dirs))
	f.mu.Unlock()
	if err := os.Mkdir(dir, 0o700); err != nil {
		f.Fatal(err)
	}
	return dir
}

func (f *fixtures) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

// setenv sets a variable of the demo's process until the end.
func (f *fixtures) setenv(k, v string) {
	old, had := os.LookupEnv(k)
	os.Setenv(k, v)
	f.Cleanup(func() {
		if had {
			os.Setenv(k, old)
		} else {
			os.Unsetenv(k)
		}
	})
}

// close runs the cleanups, the last registered first.
func (f *fixtures) close() {
	f.mu.Lock()
	fns := f.cleanups
	f.cleanups = nil
	f.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}
