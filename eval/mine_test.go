package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// history builds a repository commit by commit, each a day after the one
// before, so that the age bound can be tested.
type history struct {
	t   *testing.T
	dir string
	day int
}

func newHistory(t *testing.T) *history {
	t.Helper()
	h := &history{t: t, dir: testkit.InitRepo(t)}
	h.commit("initial", map[string]string{"README.md": "# app\n"})
	return h
}

func (h *history) date() {
	h.day++
	d := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(h.day) * 24 * time.Hour).Format(time.RFC3339)
	h.t.Setenv("GIT_AUTHOR_DATE", d)
	h.t.Setenv("GIT_COMMITTER_DATE", d)
}

// commit writes files on the current branch and commits them with msg.
func (h *history) commit(msg string, files map[string]string) {
	h.t.Helper()
	h.date()
	testkit.WriteFiles(h.t, h.dir, files)
	testkit.Git(h.t, h.dir, "add", "-A")
	testkit.Git(h.t, h.dir, "commit", "--quiet", "-m", msg)
}

// oid is the commit rev names (few tests need one: a git process each).
func (h *history) oid(rev string) string {
	h.t.Helper()
	return testkit.Git(h.t, h.dir, "rev-parse", rev)
}

// mergePR commits files on a branch and merges it into main as GitHub's
// merge button does; the branch, pr-n, stays.
func (h *history) mergePR(n int, title string, commits ...map[string]string) {
	h.t.Helper()
	branch := fmt.Sprintf("pr-%d", n)
	testkit.Git(h.t, h.dir, "checkout", "--quiet", "-b", branch)
	for i, files := range commits {
		h.commit(fmt.Sprintf("%s, part %d", title, i+1), files)
	}
	testkit.Git(h.t, h.dir, "checkout", "--quiet", "main")
	h.date()
	testkit.Git(h.t, h.dir, "merge", "--quiet", "--no-ff", "-m", fmt.Sprintf("Merge pull request #%d from octo/%s", n, branch), "-m", title, branch)
}

func (h *history) mine(o Options) *Mined {
	h.t.Helper()
	ctx := context.Background()
	g, err := git.Open(ctx, h.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	o.Ref = "main"
	m, err := Mine(ctx, g, o)
	if err != nil {
		h.t.Fatal(err)
	}
	return m
}

const calc = "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"

// The mining on a history with each kind of commit it must tell apart: a
// fix traced to the merged PR whose commit wrote the line; a squash-merged
// PR; a revert; a fix that only adds lines; a line last touched by mass
// reformatting; a fix inside its own PR; a commit that is no fix; and the
// clean PRs matched to the bug cases.
func TestMineTracesFixesToThePullRequestsThatWroteTheLines(t *testing.T) {
	h := newHistory(t)
	h.mergePR(1, "Add calc", map[string]string{"calc/calc.go": calc})
	buggy := h.oid("pr-1")
	h.commit("Add greeting (#2)", map[string]string{"greet/greet.go": "package greet\n\nfunc Hello() string {\n\treturn \"helo\"\n}\n"})
	squash := h.oid("HEAD")
	h.mergePR(3, "Document the app", map[string]string{"docs/use.md": "Use it.\n"})
	h.mergePR(4, "Add a flag, fixed in review", map[string]string{"flag/flag.go": "package flag\n\nvar On = false\n"},
		map[string]string{"flag/flag.go": "package flag\n\nvar On = true\n"}) // "fixed in review": inside the PR
	h.commit("Add tracing (#5)", map[string]string{"trace/trace.go": "package trace\n\nvar Level = 9\n"})
	reverted := h.oid("HEAD")
	h.date()
	testkit.Git(t, h.dir, "revert", "--no-edit", reverted)
	h.mergePR(6, "Add a cache", map[string]string{"cache/cache.go": "package cache\n\nvar Size = 10\n"})
	h.commit("Tidy the README", map[string]string{"README.md": "# app\n\nAn app.\n"})
	h.commit("Fix the sign in Add", map[string]string{"calc/calc.go": strings.Replace(calc, "a - b", "a + b", 1)})
	h.commit("Fix the greeting's spelling", map[string]string{"greet/greet.go": "package greet\n\nfunc Hello() string {\n\treturn \"hello\"\n}\n"})
	h.commit("fix: log the cache size", map[string]string{"cache/log.go": "package cache\n\nvar Logged = true\n"}) // additions only

	m := h.mine(Options{})

	// The two fixes, the revert, the additions-only fix, and both commits
	// of PR 4 (their messages say "fixed").
	if m.Fixes != 6 {
		t.Errorf("%d fix commits, want 6", m.Fixes)
	}
	got := map[int][]string{}
	for _, c := range m.Bugs {
		for _, l := range c.Buggy {
			got[c.PR] = append(got[c.PR], fmt.Sprintf("%s:%d by %s", l.File, l.Line, l.By[:7]))
		}
	}
	want := map[int][]string{
		1: {"calc/calc.go:5 by " + buggy[:7]},
		2: {"greet/greet.go:4 by " + squash[:7]},
		5: {"trace/trace.go:1 by " + reverted[:7], "trace/trace.go:3 by " + reverted[:7]},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("bug cases %v, want %v", got, want)
	}
	if len(m.Bugs) == 3 && (m.Bugs[0].Head != buggy || m.Bugs[1].Head != squash || m.Bugs[1].Title != "Add greeting") {
		t.Errorf("cases %+v", m.Bugs)
	}
	if m.Dropped["a fix that changed no traceable line (only additions, blank or comment lines)"] != 2 ||
		m.Dropped["a line a fix changed within its own pull request"] != 1 {
		t.Errorf("dropped %v", m.Dropped)
	}
	var clean []int
	for _, c := range m.Clean {
		clean = append(clean, c.PR)
	}
	if fmt.Sprint(clean) != "[3 4 6]" {
		t.Errorf("clean cases %v, want [3 4 6]: the PRs no fix traced to", clean)
	}
}

// A line last written by a commit that touched more than MaxFiles files is
// mass reformatting: not traced through. A line older than MaxAge is not
// traced either, and a change of whitespace alone does not take a line
// from the commit that wrote it.
func TestMineSkipsReformattingAndOldLines(t *testing.T) {
	fixed := map[string]string{"calc/calc.go": strings.Replace(calc, "a - b", "a + b", 1)}
	t.Run("reformatting", func(t *testing.T) {
		h := newHistory(t)
		h.mergePR(1, "Add calc", map[string]string{"calc/calc.go": calc})
		many := map[string]string{"calc/calc.go": strings.Replace(calc, "\treturn a - b", "\treturn (a - b)", 1)}
		for i := range 4 {
			many[fmt.Sprintf("gen/f%d.go", i)] = "package gen\n"
		}
		h.commit("Reformat everything (#2)", many)
		h.commit("Fix the sign in Add", fixed)
		if m := h.mine(Options{MaxFiles: 3}); len(m.Bugs) != 0 || m.Dropped["a line last touched by mass reformatting"] != 1 {
			t.Errorf("bugs %+v, dropped %v: the reformatting commit wrote no bug", m.Bugs, m.Dropped)
		}
	})
	t.Run("age and whitespace", func(t *testing.T) {
		h := newHistory(t)
		h.mergePR(1, "Add calc", map[string]string{"calc/calc.go": calc})
		h.commit("Tidy (#2)", map[string]string{"calc/calc.go": strings.Replace(calc, "\treturn a - b", "\treturn  a  -  b", 1)})
		h.commit("Fix the sign in Add", fixed)
		if m := h.mine(Options{MaxAge: 24 * time.Hour}); len(m.Bugs) != 0 || m.Dropped["a line older than the age bound"] != 1 {
			t.Errorf("bugs %+v, dropped %v: the line is older than the bound", m.Bugs, m.Dropped)
		}
		if m := h.mine(Options{}); len(m.Bugs) != 1 || m.Bugs[0].PR != 1 {
			t.Errorf("bugs %+v, dropped %v: whitespace changes do not hide who wrote the line", m.Bugs, m.Dropped)
		}
	})
}

// Code moved to another file keeps its author: the fix of a moved line
// traces to the PR that wrote it, not to the move.
func TestMineFollowsMovedLines(t *testing.T) {
	h := newHistory(t)
	body := "// Sub subtracts b from a, saturating at the bounds of int.\nfunc Sub(a, b int) int {\n\tdifference := a\n\tsubtrahend := b\n\treturn difference + subtrahend\n}\n"
	h.mergePR(1, "Add Sub", map[string]string{"calc/calc.go": "package calc\n\n" + body})
	wrote := h.oid("pr-1")
	h.mergePR(2, "Move Sub", map[string]string{"calc/calc.go": "package calc\n", "calc/sub.go": "package calc\n\n" + body})
	h.commit("Fix Sub", map[string]string{"calc/sub.go": "package calc\n\n" + strings.Replace(body, "difference + subtrahend", "difference - subtrahend", 1)})

	m := h.mine(Options{})

	if len(m.Bugs) != 1 || m.Bugs[0].PR != 1 || m.Bugs[0].Buggy[0].By != wrote {
		t.Errorf("bugs %+v: the moved line was written in PR 1", m.Bugs)
	}
}

// A name that is not a commit is said so, naming what to do.
func TestMineNamesABadRef(t *testing.T) {
	h := newHistory(t)
	g, _ := git.Open(context.Background(), h.dir)
	if _, err := Mine(context.Background(), g, Options{Ref: "no-such-branch"}); err == nil || !strings.Contains(err.Error(), "names no commit") {
		t.Errorf("err = %v", err)
	}
}

// A buggy line is where the pull request's head has it: a later commit of
// the same pull request that adds lines above it moves it, and the
// reviewers, who read the head, are scored against the moved line.
func TestMineGivesTheLineAtThePullRequestsHead(t *testing.T) {
	h := newHistory(t)
	h.mergePR(1, "Add calc", map[string]string{"calc/calc.go": calc},
		map[string]string{"calc/calc.go": strings.Replace(calc, "// Add adds.\n", "// Add adds.\n// It is exported.\n// Callers: many.\n", 1)})
	h.commit("Fix the sign in Add", map[string]string{"calc/calc.go": strings.Replace(strings.Replace(calc, "// Add adds.\n", "// Add adds.\n// It is exported.\n// Callers: many.\n", 1), "a - b", "a + b", 1)})

	m := h.mine(Options{})

	if len(m.Bugs) != 1 || len(m.Bugs[0].Buggy) != 1 || m.Bugs[0].Buggy[0].Line != 7 {
		t.Errorf("bugs %+v: the head has the buggy line at 7 (its commit wrote it at 5)", m.Bugs)
	}
}
