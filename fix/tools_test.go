package fix

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/repofs"
	"github.com/ocdx/gh-ocdx/verify"
)

func TestRunCommandRules(t *testing.T) {
	verify := [][]string{{"go", "test", "./..."}, {"sh", "check.sh"}, {"dx", "lint"}, {"npm", "test"}, {"cargo", "test", "--workspace"}}
	for _, tc := range []struct {
		argv []string
		want string // "" allowed, else part of the refusal
	}{
		{[]string{"go", "test", "./..."}, ""},
		{[]string{"go", "test", "./fix", "-run", "TestX"}, ""},
		{[]string{"sh", "check.sh"}, ""},
		{[]string{"dx", "lint"}, ""},
		{[]string{"git", "status"}, ""},
		{[]string{"git", "diff", "HEAD~1"}, ""},
		{[]string{"git", "log", "--oneline"}, ""},
		{[]string{"git", "show", "HEAD"}, ""},
		{[]string{"sh", "check.sh", "--evil"}, "not allowed"},
		{[]string{"go", "test", "-exec", "curl", "./..."}, "not allowed in a test command"},
		{[]string{"go", "test", "-toolexec=sh", "./..."}, "not allowed in a test command"},
		{[]string{"go", "test", "-o", "/tmp/x", "./fix"}, "not allowed in a test command"},
		{[]string{"sh", "-c", "rm -rf /"}, "not allowed"},
		{[]string{"dx", "lint", "--fix-everything"}, "not allowed"},
		{[]string{"go", "build"}, "not allowed"},
		{[]string{"git", "push", "--force"}, "gh-ocdx pushes"},
		{[]string{"git", "push"}, "never with force"},
		{[]string{"git", "reset", "--hard"}, "git reset is not allowed"},
		{[]string{"git", "checkout", "main"}, "git checkout is not allowed"},
		{[]string{"git", "rebase", "-i"}, "git rebase is not allowed"},
		{[]string{"git", "commit", "-m", "x"}, "git_commit"},
		{[]string{"git", "add", "."}, "git_commit"},
		{[]string{"git", "-c", "core.pager=sh", "log"}, "not allowed"},
		{[]string{"git", "diff", "--output=/tmp/x"}, "not allowed"},
		{[]string{"git", "diff", "--no-index", "/etc/passwd", "x"}, "not allowed"},
		{[]string{"git"}, "not allowed"},
		{[]string{"curl", "https://example.com"}, "no network access"},
		{[]string{"/usr/bin/wget", "x"}, "no network access"},
		{[]string{"ssh", "host"}, "no network access"},
		{[]string{"rm", "-rf", "."}, "not allowed"},
		{[]string{}, "empty"},
		// go test: harmless flags in both forms; nothing that runs another
		// program, reads another configuration or writes a file.
		{[]string{"go", "test", "./fix", "-run=TestX", "-count", "1", "-v", "-race", "-timeout", "5m", "-short", "-cover", "-covermode=atomic", "-failfast", "-shuffle=on", "-parallel", "2", "-cpu", "1,2", "-list", ".", "-tags", "x", "-skip", "Y", "-bench=.", "-benchtime", "1x", "--v"}, ""},
		{[]string{"go", "test", "-coverprofile=c.out", "./..."}, "not allowed in a test command"},
		{[]string{"go", "test", "-coverprofile", "/tmp/c.out", "./..."}, "not allowed in a test command"},
		{[]string{"go", "test", "-overlay=o.json", "./..."}, "not allowed in a test command"},
		{[]string{"go", "test", "-ldflags", "-X main.v=1", "./..."}, "not allowed in a test command"},
		{[]string{"go", "test", "-modfile=/tmp/go.mod", "./..."}, "not allowed in a test command"},
		{[]string{"go", "test", "--exec=sh", "./..."}, "not allowed in a test command"},
		{[]string{"go", "test", "-test.coverprofile=/tmp/x", "./..."}, "not allowed in a test command"},
		{[]string{"go", "test", "./...", "-args", "-x"}, "not allowed in a test command"},
		{[]string{"go", "test", "-run"}, "needs a value"},
		{[]string{"go", "test", "-v=yes"}, "takes no value"},
		{[]string{"go", "test", "/home/u/other/pkg"}, "absolute"},
		{[]string{"go", "test", "../other"}, "outside the repository"},
		// Other test tools: more names and paths, no options.
		{[]string{"npm", "test", "widget"}, ""},
		{[]string{"npm", "test", "--", "--config", "x"}, "not options"},
		{[]string{"cargo", "test", "--config", "build.rustc-wrapper='sh'"}, "not options"},
		{[]string{"cargo", "test", "-p", "evil"}, "not options"},
		{[]string{"npm", "test", "/etc"}, "absolute"},
		// Read-only git: revisions, in-repository paths, harmless options.
		{[]string{"git", "diff", "--stat", "HEAD~1", "--", "a.txt"}, ""},
		{[]string{"git", "log", "-n", "5", "--format=%H %s", "-3", "--author=x"}, ""},
		{[]string{"git", "show", "--name-only", "HEAD:a.txt"}, ""},
		{[]string{"git", "status", "--porcelain=v2", "-uall"}, ""},
		{[]string{"git", "diff", "/home/u/.config/gh/hosts.yml", "a.txt"}, "outside the repository"},
		{[]string{"git", "diff", "HEAD", "--", "../../.aws/credentials"}, "outside the repository"},
		{[]string{"git", "diff", "--", ":(top)x"}, "pathspec magic"},
		{[]string{"git", "diff", "--", ".git/config"}, ".git"},
		{[]string{"git", "show", "HEAD:vendor/.git/config"}, ".git"},
		{[]string{"git", "diff", "--no-ext-diff", "--ext-diff"}, "not allowed"},
		{[]string{"git", "diff", "--textconv"}, "not allowed"},
		{[]string{"git", "diff", "-O/etc/passwd"}, "not allowed"},
		{[]string{"git", "log", "--format=%G?"}, "gpg"},
		{[]string{"git", "log", "--show-signature"}, "not allowed"},
		{[]string{"git", "log", "--grep", "x"}, "not allowed"},
		{[]string{"git", "log", "-n", "x"}, "needs a number"},
		{[]string{"git", "log", "--all", "-p"}, "not allowed"},
		// What is not a revision of a commit is refused before git runs;
		// which commits a revision names is checked against the repository
		// (TestReadOnlyGitReadsOnlyThePRsCommits).
		{[]string{"git", "show", ":/untracked files on"}, "searches every branch, the stash"},
		{[]string{"git", "show", ":.env"}, "the index"},
		{[]string{"git", "diff", ":0:a.txt", "HEAD:a.txt"}, "the index"},
		{[]string{"git", "log", "stash.go"}, ""},
		{[]string{"git", "log", "--branches"}, "not allowed"},
		{[]string{"git", "log", "--glob=refs/*"}, "not allowed"},
		{[]string{"git", "log", "--reflog"}, "not allowed"},
		{[]string{"git", "log", "-g"}, "not allowed"},
		{[]string{"git", "log", "--walk-reflogs"}, "not allowed"},
		{[]string{"git", "log", "--stdin"}, "not allowed"},
		{[]string{"git", "log", "--alternate-refs"}, "not allowed"},
		{[]string{"git", "log", "--remotes"}, "not allowed"},
		{[]string{"git", "log", "--tags"}, "not allowed"},
		{[]string{"git", "log", "--not", "HEAD"}, "not allowed"},
		{[]string{"git", "show", "--notes"}, "not allowed"},
		{[]string{"git", "log", "--follow", "-Sx", "-Gy", "--", "a.txt"}, ""},
		{[]string{"git", "diff", "--cached"}, ""},
	} {
		_, err := allowRun(tc.argv, verify)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q refused: %v", tc.argv, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: got %v, want a refusal with %q", tc.argv, err, tc.want)
		}
	}
}

// toolkit is a workspace on a fresh fixture.
func toolkit(t *testing.T, verify ...string) (map[string]llm.Tool, *testkit.Repo, *[]string) {
	t.Helper()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"b.txt": "b\n"})
	m, events := toolkitAt(t, fx, verify...)
	return m, fx, events
}

// toolkitAt is a workspace on the clone of fx as it is now.
func toolkitAt(t *testing.T, fx *testkit.Repo, commands ...string) (map[string]llm.Tool, *[]string) {
	t.Helper()
	return toolkitBase(t, fx, "", commands...)
}

// toolkitBase is toolkitAt for a PR whose base commit is base.
func toolkitBase(t *testing.T, fx *testkit.Repo, base string, commands ...string) (map[string]llm.Tool, *[]string) {
	t.Helper()
	repo, err := git.Open(context.Background(), fx.Clone)
	if err != nil {
		t.Fatal(err)
	}
	files, err := repofs.Open(fx.Clone)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	var split [][]string
	for _, v := range commands {
		argv, _ := verify.SplitCommand(v)
		split = append(split, argv)
	}
	tracked, err := newTrackedFiles(context.Background(), repo, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	ws := &workspace{files: files, reads: tracked, repo: repo, base: base, verify: split, progress: &strings.Builder{},
		touched:   func(p string) { tracked.add(p); events = append(events, "touched "+p) },
		committed: func(sha, msg string) { events = append(events, "committed "+msg) }}
	m := map[string]llm.Tool{}
	for _, tl := range ws.tools() {
		m[tl.Name] = tl
	}
	return m, &events
}

func call(t *testing.T, tools map[string]llm.Tool, name string, args any) (string, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	tl, ok := tools[name]
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return tl.Run(context.Background(), raw)
}

func TestToolsStayInTheRepository(t *testing.T) {
	tools, fx, events := toolkit(t, "sh check.sh")
	outside := filepath.Join(filepath.Dir(fx.Clone), "outside")
	os.MkdirAll(outside, 0o755)
	os.Symlink(outside, filepath.Join(fx.Clone, "link"))

	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "../outside/x", "content": "x"}},
		{"write_file", map[string]any{"path": outside + "/x", "content": "x"}},
		{"write_file", map[string]any{"path": "link/x", "content": "x"}},
		{"write_file", map[string]any{"path": ".git/hooks/pre-commit", "content": "x"}},
		{"edit_file", map[string]any{"path": "link/y", "old_string": "a", "new_string": "b"}},
		{"git_commit", map[string]any{"message": "m", "paths": []string{"../outside/x"}}},
		{"git_commit", map[string]any{"message": "m", "paths": []string{".git/config"}}},
		{"git_commit", map[string]any{"message": "m", "paths": []string{"link/x"}}},
		{"run_command", map[string]any{"argv": []string{"git", "push", "--force", "origin", "HEAD"}}},
		{"run_command", map[string]any{"argv": []string{"curl", "http://127.0.0.1/"}}},
	} {
		if out, err := call(t, tools, tc.tool, tc.args); err == nil {
			t.Errorf("%s %v: allowed (%q)", tc.tool, tc.args, out)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("something was written outside: %v", entries)
	}
	if len(*events) != 0 {
		t.Errorf("refused calls must not count as work: %v", *events)
	}
}

func TestToolsEditCommitAndRun(t *testing.T) {
	tools, fx, events := toolkit(t, "sh check.sh")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"check.sh": "grep -q fixed a.txt\n"})
	testkit.Git(t, fx.Clone, "add", "check.sh")
	testkit.Git(t, fx.Clone, "commit", "-qm", "check")

	if _, err := call(t, tools, "run_command", map[string]any{"argv": []string{"sh", "check.sh"}}); err == nil || !strings.Contains(err.Error(), "exit 1") {
		t.Errorf("a failing verify command is an error result with its exit status: %v", err)
	}
	if _, err := call(t, tools, "edit_file", map[string]any{"path": "a.txt", "old_string": "a\n", "new_string": "fixed\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, tools, "git_commit", map[string]any{"message": "  "}); err == nil {
		t.Error("an empty message must be refused")
	}
	// A hooks directory the agent could write must not run.
	testkit.WriteFiles(t, fx.Clone, map[string]string{"hooks/post-commit": "#!/bin/sh\ntouch pwned\n"})
	os.Chmod(filepath.Join(fx.Clone, "hooks/post-commit"), 0o755)
	testkit.Git(t, fx.Clone, "config", "core.hooksPath", "hooks")
	out, err := call(t, tools, "git_commit", map[string]any{"message": "fix: a", "paths": []string{"a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	head := testkit.Git(t, fx.Clone, "rev-parse", "HEAD")
	if out != "committed "+head {
		t.Errorf("git_commit returned %q, HEAD is %s", out, head)
	}
	if _, err := os.Stat(filepath.Join(fx.Clone, "pwned")); err == nil {
		t.Error("a commit hook ran")
	}
	if got := testkit.Git(t, fx.Clone, "status", "--porcelain", "--", "a.txt"); got != "" {
		t.Errorf("a.txt not committed: %q", got)
	}
	if _, err := call(t, tools, "git_commit", map[string]any{"message": "again", "paths": []string{"a.txt"}}); err == nil || !strings.Contains(err.Error(), "nothing to commit") {
		t.Errorf("nothing staged: %v", err)
	}
	if out, err := call(t, tools, "run_command", map[string]any{"argv": []string{"sh", "check.sh"}}); err != nil || !strings.HasPrefix(out, "exit 0") {
		t.Errorf("check passes now: %q %v", out, err)
	}
	if out, err := call(t, tools, "run_command", map[string]any{"argv": []string{"git", "log", "--oneline", "-1"}}); err != nil || !strings.Contains(out, "fix: a") {
		t.Errorf("git log: %q %v", out, err)
	}
	if strings.Join(*events, "|") != "touched a.txt|committed fix: a" {
		t.Errorf("events %v", *events)
	}
}

// What the file tools refuse may still reach the work tree through a
// command the agent runs (a test that writes files): git_commit checks
// what is staged, refuses it, unstages it and commits nothing.
func TestCommitRefusesNestedRepositoriesAndPolicyFiles(t *testing.T) {
	tools, fx, events := toolkit(t, "sh check.sh")
	testkit.WriteFiles(t, fx.Clone, map[string]string{".ocdx.json": "{}\n", ".github/workflows/ci.yml": "on: push\n"})
	testkit.Git(t, fx.Clone, "add", "--all")
	testkit.Git(t, fx.Clone, "commit", "-qm", "policy")
	head := testkit.Git(t, fx.Clone, "rev-parse", "HEAD")
	marker := filepath.Join(t.TempDir(), "ran")
	testkit.WriteFiles(t, fx.Clone, map[string]string{
		"vendor/lib/.git/HEAD": "ref: refs/heads/main\n", "vendor/lib/.git/refs/heads/main": head + "\n",
		"vendor/lib/.git/objects/info/alternates": filepath.Join(fx.Clone, ".git", "objects") + "\n",
		"vendor/lib/.git/config":                  "[core]\n\tfsmonitor = \"touch " + marker + "\"\n",
		".ocdx.json":                              `{"verify":["sh -c 'cat ~/.config/gh/hosts.yml'"]}`,
		".github/workflows/ci.yml":                "on: pull_request_target\n",
		".gitmodules":                             "[submodule \"x\"]\n\tpath = x\n\turl = ../x\n",
		"docs/REVIEW.md":                          "approve\n",
		"a.txt":                                   "fixed\n",
	})

	_, err := call(t, tools, "git_commit", map[string]any{"message": "everything"})
	if err == nil {
		t.Fatal("committed")
	}
	for _, want := range []string{"nothing was committed", "vendor/lib: a nested repository", `".ocdx.json" is a repository policy file`,
		`".github/workflows/ci.yml" is a repository policy file`, `"docs/REVIEW.md"`, `".gitmodules" declares submodules`, "commit again with paths"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal lacks %q:\n%v", want, err)
		}
	}
	if got := testkit.Git(t, fx.Clone, "rev-parse", "HEAD"); got != head {
		t.Error("a commit was made")
	}
	if staged := testkit.Git(t, fx.Clone, "diff", "--cached", "--name-only", "--ignore-submodules=none"); staged != "a.txt" {
		t.Errorf("only a.txt may stay staged, got %q", staged)
	}
	if _, err := call(t, tools, "git_commit", map[string]any{"message": "fix: a", "paths": []string{".github"}}); err == nil || !strings.Contains(err.Error(), "policy file") {
		t.Errorf("a directory holding a policy file: %v", err)
	}
	if _, err := call(t, tools, "git_commit", map[string]any{"message": "fix: a", "paths": []string{".ocdx.json"}}); err == nil || !strings.Contains(err.Error(), "policy file") {
		t.Errorf("a policy file named: %v", err)
	}
	if _, err := call(t, tools, "git_commit", map[string]any{"message": "fix: a", "paths": []string{"a.txt"}}); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Git(t, fx.Clone, "show", "--name-only", "--format=", "HEAD"); got != "a.txt" {
		t.Errorf("the commit holds %q", got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("git ran the nested repository's fsmonitor")
	}
	if strings.Join(*events, "|") != "committed fix: a" {
		t.Errorf("events %v", *events)
	}
}

func TestReadOnlyGitIsRebuiltAndConfined(t *testing.T) {
	tools, fx, _ := toolkit(t)
	outside := filepath.Join(filepath.Dir(fx.Clone), "secret.txt")
	os.WriteFile(outside, []byte("zebra-cobalt\n"), 0o600)
	os.Symlink(filepath.Dir(fx.Clone), filepath.Join(fx.Clone, "up"))
	for _, argv := range [][]string{
		{"git", "diff", outside, "a.txt"},
		{"git", "diff", "up/secret.txt", "b.txt"},
		{"git", "diff", "HEAD", "--", "up/secret.txt"},
		{"git", "status", "up"},
		{"git", "log", ":(top)a.txt"},
	} {
		out, err := call(t, tools, "run_command", map[string]any{"argv": argv})
		if err == nil || strings.Contains(out+err.Error(), "zebra") {
			t.Errorf("%q: got %q, %v", argv, out, err)
		}
	}
	// Revisions and paths are told apart; paths go after "--", and
	// gh-ocdx's own options are added.
	testkit.WriteFiles(t, fx.Clone, map[string]string{"b.txt": "b2\n"})
	out, err := call(t, tools, "run_command", map[string]any{"argv": []string{"git", "diff", "HEAD", "b.txt"}})
	if err != nil || !strings.Contains(out, "+b2") {
		t.Errorf("git diff HEAD b.txt: %q %v", out, err)
	}
	out, err = call(t, tools, "run_command", map[string]any{"argv": []string{"git", "show", "--stat", "HEAD~1", "a.txt"}})
	if err != nil || !strings.Contains(out, "a.txt") {
		t.Errorf("git show HEAD~1 a.txt: %q %v", out, err)
	}
	if _, err := call(t, tools, "run_command", map[string]any{"argv": []string{"git", "log", "main@{upstream}"}}); err == nil || !strings.Contains(err.Error(), "no upstream") {
		t.Errorf("a bad revision is explained: %v", err)
	}
}

// TestReadOnlyGitReadsOnlyThePRsCommits: the clone holds the user's own
// work besides the PR (a stash with an untracked .env, a local branch with
// an embargoed fix, a commit only the reflog remembers, a tag on an
// unrelated commit, a note); no revision form reaches it, and the PR's
// commits read as before.
func TestReadOnlyGitReadsOnlyThePRsCommits(t *testing.T) {
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"b.txt": "b\n", "x:y..z.txt": "xyz\n", ".gitignore": "*.log\n"})
	g := func(args ...string) string { return testkit.Git(t, fx.Clone, args...) }
	// The base moved on after the branch: its commit is the PR's base.
	g("checkout", "--quiet", "main")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"m.txt": "base moved on\n"})
	g("add", "m.txt")
	g("commit", "--quiet", "-m", "base moved on")
	base := g("rev-parse", "HEAD")
	// An embargoed fix, on a local branch never pushed.
	g("checkout", "--quiet", "-b", "embargo", "feature")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"secret.txt": "EMBARGOED-CVE fix\n"})
	g("add", "secret.txt")
	g("commit", "--quiet", "-m", "embargo: EMBARGOED-CVE")
	g("checkout", "--quiet", "feature")
	// A commit dropped from the branch, left in the reflog.
	testkit.WriteFiles(t, fx.Clone, map[string]string{"b.txt": "DROPPED-WORK\n"})
	g("commit", "--quiet", "-am", "DROPPED-WORK")
	g("reset", "--quiet", "--hard", "HEAD~1")
	// A tag on a commit of no branch.
	tree := g("write-tree")
	orphan := g("commit-tree", "-m", "TAGGED-ELSEWHERE", tree)
	g("tag", "elsewhere", orphan)
	g("notes", "add", "-m", "NOTE-TEXT", "HEAD")
	// The user's untracked .env, stashed with git stash -u.
	testkit.WriteFiles(t, fx.Clone, map[string]string{".env": "API_KEY=ENV-SECRET\n"})
	g("stash", "--quiet", "-u")
	g("update-ref", "ORIG_HEAD", "embargo") // as a reset away from it leaves it
	dropped := ""
	for _, l := range strings.Split(g("log", "-g", "--format=%gd %s", "HEAD"), "\n") {
		if sel, msg, _ := strings.Cut(l, " "); msg == "DROPPED-WORK" {
			dropped = sel
		}
	}
	secrets := []string{"EMBARGOED", "DROPPED-WORK", "TAGGED-ELSEWHERE", "NOTE-TEXT", "ENV-SECRET"}

	tools, _ := toolkitBase(t, fx, base)
	for _, tc := range []struct {
		argv []string
		want string // "" allowed, else part of the refusal
	}{
		{[]string{"git", "show", ":/untracked files on"}, "searches every branch, the stash"},
		{[]string{"git", "show", ":/EMBARGOED"}, "searches every branch"},
		{[]string{"git", "show", ":.env"}, "the index"},
		{[]string{"git", "show", "stash@{0}^3"}, "stash@{0}^3 is not a commit of this PR"},
		{[]string{"git", "show", "stash@{0}^3:.env"}, "not a commit of this PR"},
		{[]string{"git", "log", "-p", "refs/stash"}, "not a commit of this PR"},
		{[]string{"git", "show", "embargo:secret.txt"}, "embargo is not a commit of this PR"},
		{[]string{"git", "log", "-p", "embargo"}, "not a commit of this PR"},
		{[]string{"git", "log", "-p", "HEAD..embargo"}, "embargo is not a commit of this PR"},
		{[]string{"git", "diff", "HEAD...refs/heads/embargo"}, "not a commit of this PR"},
		{[]string{"git", "diff", "embargo"}, "not a commit of this PR"},
		{[]string{"git", "show", "embargo^!"}, "not a commit of this PR"},
		{[]string{"git", "log", "^HEAD", "embargo"}, "not a commit of this PR"},
		{[]string{"git", "show", dropped}, dropped + " is not a commit of this PR"},
		{[]string{"git", "show", "@{-1}:secret.txt"}, "@{-1} is not a commit of this PR"},
		{[]string{"git", "show", "elsewhere"}, "not a commit of this PR"},
		{[]string{"git", "show", "ORIG_HEAD"}, "not a commit of this PR"},
		{[]string{"git", "show", "HEAD^{/EMBARGOED}"}, "-"}, // no commit of HEAD's matches: git reads a path
		{[]string{"git", "log", "--all", "-p"}, "not allowed"},
		{[]string{"git", "log", "-g", "-p"}, "not allowed"},
		{[]string{"git", "show", g("rev-parse", "embargo:secret.txt")}, "is not a commit"},
		// The PR's commits, by any name, and files of them.
		{[]string{"git", "show", "HEAD"}, ""},
		{[]string{"git", "show", "HEAD~1:a.txt"}, ""},
		{[]string{"git", "show", "HEAD:"}, ""},
		{[]string{"git", "show", "HEAD:./"}, ""},
		{[]string{"git", "show", "HEAD:./a.txt"}, ""},
		{[]string{"git", "show", "HEAD:.gitignore"}, ""},
		{[]string{"git", "log", "--oneline", "main..HEAD"}, ""},
		{[]string{"git", "diff", base + "...HEAD"}, ""},
		{[]string{"git", "show", "main:m.txt"}, ""},
		{[]string{"git", "show", "HEAD^!"}, ""},
		{[]string{"git", "log", "^HEAD~1", "HEAD", "--", "b.txt"}, ""},
		{[]string{"git", "diff", "HEAD~1", "b.txt"}, ""},
		{[]string{"git", "log", "-p"}, ""},
		{[]string{"git", "log", "stash.txt"}, ""}, // no revision: a path
		{[]string{"git", "log", "x:y..z.txt"}, ""},
		{[]string{"git", "log", "HEAD..nowhere"}, "nowhere is not a revision"},
	} {
		out, err := call(t, tools, "run_command", map[string]any{"argv": tc.argv})
		for _, s := range secrets {
			if strings.Contains(out, s) || err != nil && strings.Contains(err.Error(), s) && !strings.Contains(strings.Join(tc.argv, " "), s) {
				t.Errorf("%q shows %s: %q %v", tc.argv, s, out, err)
			}
		}
		switch {
		case tc.want == "-":
		case tc.want == "" && (err != nil || !strings.Contains(out, "exit 0")):
			t.Errorf("%q refused: %q %v", tc.argv, out, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: got %q %v, want a refusal with %q", tc.argv, out, err, tc.want)
		}
	}
	// The PR's commits are given to git by their full names (%S: the
	// name on the command line).
	out, err := call(t, tools, "run_command", map[string]any{"argv": []string{"git", "log", "-1", "--format=%S", "HEAD~1"}})
	if err != nil || !strings.Contains(out, "\n"+g("rev-parse", "HEAD~1")) {
		t.Errorf("git log HEAD~1: %q %v", out, err)
	}
}
