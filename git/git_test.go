package git_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestPreflightQuestions(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"b.txt": "b\n"})
	r, err := git.Open(ctx, filepath.Join(fx.Clone))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := r.Branch(ctx); err != nil || b != "feature" {
		t.Errorf("branch %q %v", b, err)
	}
	if d, err := r.Dirty(ctx); err != nil || len(d) != 0 {
		t.Errorf("a fresh clone is clean: %v %v", d, err)
	}
	os.WriteFile(filepath.Join(fx.Clone, "new.txt"), []byte("x"), 0o644)
	if d, _ := r.Dirty(ctx); len(d) != 1 || d[0] != "new.txt" {
		t.Errorf("dirty: %v", d)
	}
	head, _ := r.Head(ctx)
	if !r.HasCommit(ctx, head) || r.HasCommit(ctx, strings.Repeat("1", 40)) || r.HasCommit(ctx, "--all") {
		t.Error("HasCommit must know real commits only")
	}
	if _, err := git.Open(ctx, t.TempDir()); !errors.Is(err, git.ErrNotRepo) {
		t.Errorf("outside a repository: %v", err)
	}
}

func TestPushIsAFastForwardOfTheReviewedHead(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", nil, map[string]string{"b.txt": "b\n"})
	r, _ := git.Open(ctx, fx.Clone)
	reviewed, _ := r.Head(ctx)

	testkit.WriteFiles(t, fx.Clone, map[string]string{"b.txt": "b2\n"})
	testkit.Git(t, fx.Clone, "commit", "-qam", "fix")
	if err := r.Push(ctx, "origin", "feature", reviewed, headOf(t, fx.Clone)); err != nil {
		t.Fatal(err)
	}
	head, _ := r.Head(ctx)
	if got := fx.RemoteOID(t, "feature"); got != head {
		t.Errorf("remote at %s, want %s", got, head)
	}

	// Someone else pushes; our next push would still be a fast-forward of
	// what we reviewed, but the branch moved.
	other := filepath.Join(t.TempDir(), "other")
	testkit.Git(t, t.TempDir(), "clone", "-q", "--branch", "feature", fx.Remote, other)
	testkit.WriteFiles(t, other, map[string]string{"c.txt": "theirs\n"})
	testkit.Git(t, other, "add", "c.txt")
	testkit.Git(t, other, "commit", "-qm", "theirs")
	testkit.Git(t, other, "push", "-q", "origin", "feature")
	theirs := fx.RemoteOID(t, "feature")

	testkit.WriteFiles(t, fx.Clone, map[string]string{"b.txt": "b3\n"})
	testkit.Git(t, fx.Clone, "commit", "-qam", "mine")
	err := r.Push(ctx, "origin", "feature", head, headOf(t, fx.Clone))
	var pe *git.PushError
	if !errors.As(err, &pe) || !pe.Moved || !strings.Contains(err.Error(), "moved on GitHub since gh-ocdx reviewed "+head[:7]) {
		t.Fatalf("want a moved branch, got %v", err)
	}
	if got := fx.RemoteOID(t, "feature"); got != theirs {
		t.Errorf("the remote must keep their commit %s, has %s", theirs, got)
	}
	if err := r.Push(ctx, "origin", "+feature", head, headOf(t, fx.Clone)); err == nil {
		t.Error("a +refspec (force) must be refused")
	}
}

// The author resets the branch to an older commit after the review: a
// plain push would be a fast-forward of that commit and put the removed
// one back.
func TestPushAfterTheAuthorResetTheBranchPushesNothing(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", nil, map[string]string{"b.txt": "b\n"})
	r, _ := git.Open(ctx, fx.Clone)
	reviewed, _ := r.Head(ctx)
	testkit.Git(t, fx.Remote, "update-ref", "refs/heads/feature", reviewed+"^")
	reset := fx.RemoteOID(t, "feature")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"b.txt": "b2\n"})
	testkit.Git(t, fx.Clone, "commit", "-qam", "fix")

	err := r.Push(ctx, "origin", "feature", reviewed, headOf(t, fx.Clone))
	var pe *git.PushError
	if !errors.As(err, &pe) || !pe.Moved {
		t.Fatalf("want a moved branch, got %v", err)
	}
	if got := fx.RemoteOID(t, "feature"); got != reset {
		t.Errorf("the remote moved to %s: the removed commit came back", got)
	}
}

func TestPushRefusesAHeadThatDoesNotContainTheReviewedOne(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", nil, map[string]string{"b.txt": "b\n"})
	r, _ := git.Open(ctx, fx.Clone)
	reviewed, _ := r.Head(ctx)
	testkit.Git(t, fx.Clone, "reset", "-q", "--hard", "HEAD^")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"c.txt": "c\n"})
	testkit.Git(t, fx.Clone, "add", "c.txt")
	testkit.Git(t, fx.Clone, "commit", "-qm", "elsewhere")

	err := r.Push(ctx, "origin", "feature", reviewed, headOf(t, fx.Clone))
	if err == nil || !strings.Contains(err.Error(), "does not contain "+reviewed[:7]) {
		t.Fatalf("want a refusal, got %v", err)
	}
	if got := fx.RemoteOID(t, "feature"); got != reviewed {
		t.Errorf("the remote moved to %s", got)
	}
	for _, bad := range []string{"", "HEAD", "--all", reviewed[:7]} {
		if err := r.Push(ctx, "origin", "feature", bad, headOf(t, fx.Clone)); err == nil {
			t.Errorf("reviewed %q accepted", bad)
		}
	}
}

func TestDirtyNamesEveryChangedFileExactly(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n", " lead.txt": "x\n", "gone.txt": "g\n", "staged.txt": "s\n", ".gitignore": ".env\n"}, nil)
	r, _ := git.Open(ctx, fx.Clone)
	testkit.WriteFiles(t, fx.Clone, map[string]string{"a.txt": "changed\n", " lead.txt": "changed\n", "new file.txt": "n\n",
		"staged.txt": "staged\n", "new dir/\"quoted\"\nname": "q\n", ".env": "ignored\n"})
	os.Remove(filepath.Join(fx.Clone, "gone.txt"))
	testkit.Git(t, fx.Clone, "add", "staged.txt")
	testkit.Git(t, fx.Clone, "config", "status.showUntrackedFiles", "no") // the user's setting changes nothing
	got, err := r.Dirty(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{" lead.txt", "a.txt", "gone.txt", "staged.txt", "new dir/\"quoted\"\nname", "new file.txt"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A hooks directory inside the work tree (husky and the like) is one the
// fix agent can write: pushing must not run what it put there.
func TestPushRunsNoHook(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", nil, map[string]string{"b.txt": "b\n"})
	r, _ := git.Open(ctx, fx.Clone)
	testkit.WriteFiles(t, fx.Clone, map[string]string{".githooks/pre-push": "#!/bin/sh\ntouch \"$(git rev-parse --show-toplevel)/pwned\"\n"})
	os.Chmod(filepath.Join(fx.Clone, ".githooks/pre-push"), 0o755)
	testkit.Git(t, fx.Clone, "config", "core.hooksPath", ".githooks")
	testkit.Git(t, fx.Clone, "add", ".githooks")
	testkit.Git(t, fx.Clone, "commit", "-qm", "hooks", "--no-verify")

	if err := r.Push(ctx, "origin", "feature", fx.RemoteOID(t, "feature"), headOf(t, fx.Clone)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(fx.Clone, "pwned")); err == nil {
		t.Error("the push ran a pre-push hook from the work tree")
	}
}

// hostile is a clone whose work tree holds a committed embedded repository
// (vendor/lib) and a submodule whose gitdir file leads to a git directory
// in the work tree (ext, through evil/): both configurations name an
// fsmonitor command and hooks that write marker. Whatever gh-ocdx asks git,
// git must not run them.
func hostile(t *testing.T) (*testkit.Repo, string) {
	t.Helper()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"b.txt": "b\n"})
	head := testkit.Git(t, fx.Clone, "rev-parse", "HEAD")
	marker := filepath.Join(t.TempDir(), "ran")
	gitDir := func(dir string) {
		testkit.WriteFiles(t, fx.Clone, map[string]string{
			dir + "/HEAD": "ref: refs/heads/main\n", dir + "/refs/heads/main": head + "\n",
			dir + "/objects/info/alternates": filepath.Join(fx.Clone, ".git", "objects") + "\n",
			dir + "/config":                  "[core]\n\tfsmonitor = \"env >> " + marker + "; true\"\n\thooksPath = " + filepath.Join(fx.Clone, "hooks") + "\n",
		})
	}
	for _, h := range []string{"pre-commit", "post-commit", "pre-push", "post-checkout", "reference-transaction", "post-index-change"} {
		testkit.WriteFiles(t, fx.Clone, map[string]string{"hooks/" + h: "#!/bin/sh\nenv >> " + marker + "\n"})
		os.Chmod(filepath.Join(fx.Clone, "hooks", h), 0o755)
	}
	gitDir("vendor/lib/.git")
	testkit.Git(t, fx.Clone, "add", "--all")
	testkit.Git(t, fx.Clone, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "embedded")
	gitDir("evil")
	testkit.WriteFiles(t, fx.Clone, map[string]string{".gitmodules": "[submodule \"ext\"]\n\tpath = ext\n\turl = ./evil\n\tignore = none\n"})
	testkit.Git(t, fx.Clone, "update-index", "--add", "--cacheinfo", "160000,"+head+",ext")
	testkit.Git(t, fx.Clone, "add", "--all")
	testkit.Git(t, fx.Clone, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "submodule")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"ext/.git": "gitdir: ../evil\n", "b.txt": "changed\n"})
	// Without the hardening, git runs the command: the fixture is armed.
	testkit.Git(t, fx.Clone, "diff", "--name-only", "HEAD")
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the fixture does not run its fsmonitor under plain git: the test would prove nothing")
	}
	os.Remove(marker)
	return fx, marker
}

func TestNoGitCommandEntersANestedRepository(t *testing.T) {
	ctx := context.Background()
	fx, marker := hostile(t)
	r, err := git.Open(ctx, fx.Clone)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := r.Head(ctx)
	if d, err := r.Dirty(ctx); err != nil || !slices.Contains(d, "b.txt") {
		t.Errorf("dirty: %v %v", d, err)
	}
	r.Branch(ctx)
	r.HasCommit(ctx, head)
	r.Log(ctx, "main")
	r.Diffstat(ctx, "main")
	if rc, ok := r.OpenPRDiff(ctx, testkit.Git(t, fx.Clone, "rev-parse", "main"), head); ok {
		io.Copy(io.Discard, rc)
		rc.Close()
	}
	r.Diff(ctx, "main", head)
	for _, args := range [][]string{{"status", "--porcelain"}, {"diff", "HEAD"}, {"add", "--all"}, {"commit", "-qm", "x"}, {"log", "-p", "-1"}} {
		if _, err := r.Run(ctx, args...); err != nil {
			t.Errorf("git %v: %v", args, err)
		}
	}
	if err := r.Command(ctx, "status").Run(); err != nil {
		t.Error(err)
	}
	if err := r.Push(ctx, "origin", "feature", fx.RemoteOID(t, "feature"), headOf(t, fx.Clone)); err != nil {
		t.Error(err)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("git ran a nested repository's fsmonitor or hook:\n%s", b)
	}
}

// Only the push, which talks to the remote, gets the credentials.
func TestGitCommandsGetNoCredentials(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", nil, nil)
	r, _ := git.Open(ctx, fx.Clone)
	for _, k := range git.Credentials {
		t.Setenv(k, "cred-"+k)
	}
	out, err := r.Run(ctx, "-c", "alias.environment=!env", "environment")
	if err != nil || !strings.Contains(out, "PATH=") {
		t.Fatalf("env: %v\n%s", err, out)
	}
	if strings.Contains(out, "cred-") {
		t.Errorf("a git command got credentials:\n%s", out)
	}
	c := r.Command(ctx, "-c", "alias.environment=!env", "environment")
	b, err := c.Output()
	if err != nil || strings.Contains(string(b), "cred-") {
		t.Errorf("Command got credentials (%v):\n%s", err, b)
	}
}

// DiffSince gives the changes from a reviewed head to a later one; after
// a rebase (the reviewed head no longer an ancestor) or with an unknown
// commit, it gives nothing and the caller reviews in full.
func TestDiffSince(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"b.txt": "b\n"})
	r, _ := git.Open(ctx, fx.Clone)
	reviewed, _ := r.Head(ctx)
	testkit.WriteFiles(t, fx.Clone, map[string]string{"b.txt": "fixed\n"})
	testkit.Git(t, fx.Clone, "commit", "-qam", "fix")
	head, _ := r.Head(ctx)

	d, ok := r.DiffSince(ctx, reviewed, head, "")
	if !ok || !strings.Contains(d, "+fixed") || strings.Contains(d, "a.txt") {
		t.Fatalf("DiffSince = %q, %v", d, ok)
	}
	testkit.Git(t, fx.Clone, "checkout", "-q", "main")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"c.txt": "c\n"})
	testkit.Git(t, fx.Clone, "add", "c.txt")
	testkit.Git(t, fx.Clone, "commit", "-qm", "elsewhere")
	rebased, _ := r.Head(ctx)
	for name, pair := range map[string][2]string{"not an ancestor": {head, rebased}, "unknown": {"0123456789abcdef0123456789abcdef01234567", head}, "an option": {"--output=/tmp/x", head}} {
		if _, ok := r.DiffSince(ctx, pair[0], pair[1], ""); ok {
			t.Errorf("%s: a diff", name)
		}
	}
}

// After the author merges the base branch into the PR, the diff since the
// reviewed head holds the PR's own changes only: what the merge brought in
// from the base is left out, and a conflict's resolution stays in.
func TestDiffSinceLeavesOutWhatMergingTheBaseBroughtIn(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n", "shared.txt": "one\n"}, map[string]string{"b.txt": "b\n"})
	r, _ := git.Open(ctx, fx.Clone)
	reviewed, _ := r.Head(ctx)
	// The base moves on: a file of its own, and a line the PR changes too.
	testkit.Git(t, fx.Clone, "checkout", "-q", "main")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"base-only.txt": "from the base\n", "shared.txt": "base says two\n"})
	testkit.Git(t, fx.Clone, "add", "-A")
	testkit.Git(t, fx.Clone, "commit", "-qm", "base moves on")
	base, _ := r.Head(ctx)
	// The PR changes the same line, then merges the base in, resolving.
	testkit.Git(t, fx.Clone, "checkout", "-q", "feature")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"shared.txt": "pr says three\n", "b.txt": "b, fixed\n"})
	testkit.Git(t, fx.Clone, "commit", "-qam", "the PR's own change")
	if c := r.Command(ctx, "merge", "-q", "--no-edit", "main"); c.Run() == nil {
		t.Fatal("the merge was meant to conflict")
	}
	testkit.WriteFiles(t, fx.Clone, map[string]string{"shared.txt": "resolved: both\n"})
	testkit.Git(t, fx.Clone, "commit", "-qam", "merge main")
	head, _ := r.Head(ctx)
	log := gitLog(t)

	d, ok := r.DiffSince(ctx, reviewed, head, base)
	if !ok {
		t.Fatal("no diff")
	}
	// That the base's tip is not in the reviewed head is asked once: it is
	// the merge base the head has with the base.
	if b, _ := os.ReadFile(log); strings.Count(string(b), "--is-ancestor") != 2 {
		t.Errorf("want two merge-base --is-ancestor, reviewed in head and base in reviewed:\n%s", b)
	}
	for _, want := range []string{"+b, fixed", "+resolved: both"} {
		if !strings.Contains(d, want) {
			t.Errorf("the PR's own change %q is missing:\n%s", want, d)
		}
	}
	if strings.Contains(d, "base-only.txt") || strings.Contains(d, "from the base") {
		t.Errorf("what the base brought in is in the diff:\n%s", d)
	}
	// Without the base's tip (not fetched), everything since is shown.
	if d, ok := r.DiffSince(ctx, reviewed, head, ""); !ok || !strings.Contains(d, "base-only.txt") {
		t.Errorf("without the base: %v\n%s", ok, d)
	}
}

// The PR's diff read in the clone is what GitHub sends, whatever the
// user's configuration says of diffs: the secret scan and the reviewers
// read it, and inline comments anchor on it.
func TestOpenPRDiffIsGitHubsDiffWhateverTheConfiguration(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("line\n", 40)
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"old name.txt": long, "a.txt": long, "t.txt": "x\n"},
		map[string]string{"a.txt": strings.Replace(long, "line\n", "changed\n", 1) + "\nend\n", "new\tfile.txt": "token\n"})
	testkit.Git(t, fx.Clone, "mv", "old name.txt", "new name.txt")
	testkit.Git(t, fx.Clone, "commit", "-qm", "rename")
	want := fx.Diff(t) // as the fake GitHub serves it: git diff base...head
	for _, kv := range [][2]string{{"diff.noprefix", "true"}, {"diff.mnemonicPrefix", "true"}, {"diff.context", "10"},
		{"diff.renames", "false"}, {"diff.algorithm", "histogram"}, {"diff.orderFile", "order"}, {"core.quotePath", "false"},
		{"diff.external", "false"}, {"color.ui", "always"}, {"diff.suppressBlankEmpty", "true"}, {"diff.relative", "true"},
		{"diff.interHunkContext", "10"}, {"core.abbrev", "12"}, {"diff.txt.textconv", "false"}} {
		testkit.Git(t, fx.Clone, "config", kv[0], kv[1])
	}
	testkit.WriteFiles(t, fx.Clone, map[string]string{".git/info/attributes": "*.txt diff=txt\n", "order": "t.txt\n"})
	t.Setenv("GIT_DIFF_OPTS", "--unified=0")
	r, _ := git.Open(ctx, fx.Clone)
	head, _ := r.Head(ctx)
	base := testkit.Git(t, fx.Clone, "rev-parse", "main")

	rc, ok := r.OpenPRDiff(ctx, base, head)
	if !ok {
		t.Fatal("both commits are in the clone")
	}
	var got strings.Builder
	if _, err := io.Copy(&got, rc); err != nil {
		t.Fatal(err)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want {
		t.Errorf("the clone's diff is not GitHub's:\n%s\nwant:\n%s", got.String(), want)
	}
	if d, ok := r.PRDiff(ctx, base, head, []string{"a.txt"}); !ok || len(d) == 0 || !strings.Contains(want, string(d)) {
		t.Errorf("PRDiff of a.txt is not its part of the PR's diff:\n%s", d)
	}
	if rc, ok := r.OpenPRDiff(ctx, strings.Repeat("1", 40), head); !ok {
		t.Error("the diff was refused")
	} else if n, _ := io.Copy(io.Discard, rc); n != 0 || !errors.Is(rc.Close(), git.ErrNotHere) {
		t.Error("a base the clone does not have gives no diff")
	}
}

// gitLog puts a git first on PATH that writes each command's arguments to
// the returned file, then runs the real git: what a test counts.
// headOf is the commit checked out in dir.
func headOf(t *testing.T, dir string) string {
	t.Helper()
	return testkit.Git(t, dir, "rev-parse", "HEAD")
}

func gitLog(t *testing.T) (log string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	log = filepath.Join(dir, "log")
	script := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// What git said of a commit named by its full ID is asked once in a run:
// that it is here, that it is an ancestor of another. A commit not here is
// asked about again: a fetch may bring it.
func TestACommitIsAskedAboutOnce(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"a.txt": "b\n"})
	base, head := fx.RemoteOID(t, "main"), fx.RemoteOID(t, "feature")
	missing := strings.Repeat("e", 40)
	r, _ := git.Open(ctx, fx.Clone)
	log := gitLog(t)

	for range 2 {
		if !r.HasCommits(ctx, base, head) || !r.HasCommit(ctx, head) {
			t.Fatal("the base and head are here")
		}
		if r.HasCommits(ctx, head, missing) || r.HasCommit(ctx, "main") != true {
			t.Fatal("a missing commit is not here; a branch is")
		}
		if _, ok := r.DiffSince(ctx, base, head, ""); !ok {
			t.Fatal("the base is an ancestor of the head")
		}
	}
	b, _ := os.ReadFile(log)
	// What is known of ancestry says nothing of a name that looks like it.
	if r.HasCommit(ctx, base+".."+head) || r.HasCommit(ctx, "ancestor "+base+" "+head) {
		t.Error("a range is not a commit")
	}
	count := func(sub string) int { return strings.Count(string(b), sub) }
	// base and head once; the missing one and the branch each time.
	if n := count("cat-file"); n != 5 {
		t.Errorf("%d cat-file processes, want 5:\n%s", n, b)
	}
	if n := count("--is-ancestor"); n != 1 {
		t.Errorf("%d merge-base --is-ancestor processes, want 1:\n%s", n, b)
	}
}

// Questions asked at once about the same commits (a round reads the PR's
// diff while the secret scan reads its history, both from the base and
// head) start one git process, not one each: the later ones wait and find
// the answer known.
func TestCommitsAskedAboutAtOnceAreAskedOnce(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"a.txt": "b\n"})
	base, head := fx.RemoteOID(t, "main"), fx.RemoteOID(t, "feature")
	r, _ := git.Open(ctx, fx.Clone)
	log := gitLog(t)

	start := make(chan struct{})
	found := make(chan bool)
	for range 8 {
		go func() {
			<-start
			found <- r.HasCommits(ctx, base, head)
		}()
	}
	close(start)
	for range 8 {
		if !<-found {
			t.Error("the base and head are here")
		}
	}
	b, _ := os.ReadFile(log)
	if n := strings.Count(string(b), "cat-file"); n != 1 {
		t.Errorf("%d cat-file processes for 8 questions at once about the same commits, want 1:\n%s", n, b)
	}
}

// gh-ocdx's questions take no lock git can do without: the index, which
// git status and diff would refresh on disk after a file's time changed,
// stays as it was, so the user's own git never finds it locked.
func TestQuestionsLeaveTheIndexAlone(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, nil)
	r, _ := git.Open(ctx, fx.Clone)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(fx.Clone, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(fx.Clone, ".git", "index")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if dirty, err := r.Dirty(ctx); err != nil || len(dirty) != 0 {
		t.Fatalf("dirty %q, %v: only the file's time changed", dirty, err)
	}
	if _, err := r.Diffstat(ctx, "HEAD"); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(before, after) {
		t.Error("the index was rewritten")
	}
}

// Status answers as Branch, Head and Dirty do, on a branch, a detached
// HEAD, a branch named as git status names a detached HEAD, and an unborn
// branch, with paths with spaces, from a subdirectory: in one git process
// but where the branch's name says "(detached)".
func TestStatusIsBranchHeadAndDirtyInOneProcess(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature/x", nil, map[string]string{"a.txt": "a\n", "sub dir/b c.txt": "b\n"})
	r, err := git.Open(ctx, filepath.Join(fx.Clone, "sub dir"))
	if err != nil || r.Dir != fx.Clone {
		t.Fatalf("opened %v at %v, want %s", r, err, fx.Clone)
	}
	check := func(what string, dirty []string, processes int) {
		t.Helper()
		wantBranch, _ := r.Branch(ctx)
		wantHead, err := r.Head(ctx)
		if err != nil {
			wantHead = "" // no commit yet
		}
		log := gitLog(t)
		st, err := r.Status(ctx)
		if err != nil || st.Branch != wantBranch || st.Head != wantHead || strings.Join(st.Dirty, "|") != strings.Join(dirty, "|") {
			t.Errorf("%s: %+v %v, want %q %q %q", what, st, err, wantBranch, wantHead, dirty)
		}
		if b, _ := os.ReadFile(log); strings.Count(string(b), "\n") != processes {
			t.Errorf("%s: git ran\n%s", what, b)
		}
	}
	check("on a clean branch", nil, 1)
	testkit.WriteFiles(t, fx.Clone, map[string]string{"sub dir/b c.txt": "changed\n", "new file.txt": "n\n"})
	testkit.Git(t, fx.Clone, "add", "new file.txt")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"new file.txt": "changed again\n", "sub dir/un tracked": "u\n"})
	dirty := []string{"new file.txt", "sub dir/b c.txt", "sub dir/un tracked"}
	check("on a dirty branch", dirty, 1)
	testkit.Git(t, fx.Clone, "checkout", "--quiet", "--detach")
	check("detached", dirty, 2)
	testkit.Git(t, fx.Clone, "checkout", "--quiet", "-b", "(detached)")
	check(`on a branch named "(detached)"`, dirty, 2)
	testkit.Git(t, fx.Clone, "checkout", "--quiet", "--orphan", "unborn")
	check("unborn", []string{"a.txt", "new file.txt", "sub dir/b c.txt", "sub dir/un tracked"}, 1)
}

// Ahead counts head's commits over base only when base is an ancestor, and
// asks git nothing when base is head (a run started at the PR's head).
func TestAheadCountsOnlyOverAnAncestor(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"b.txt": "b\n"})
	r, _ := git.Open(ctx, fx.Clone)
	base := fx.RemoteOID(t, "main")
	// HEAD's message makes ":/\\...HEAD", read whole as one name, a commit.
	testkit.Git(t, fx.Clone, "commit", "--quiet", "--allow-empty", "-m", "see v1.2 HEAD")
	head, parent := testkit.Git(t, fx.Clone, "rev-parse", "HEAD"), testkit.Git(t, fx.Clone, "rev-parse", "HEAD~1")
	for name, want := range map[string]int{base: 2, head: 0, parent: 1, "HEAD~1": 0, `:/\`: 0, strings.Repeat("e", 40): 0, "-p": 0} {
		if got := r.Ahead(ctx, name, head); got != want {
			t.Errorf("Ahead(%s) = %d, want %d", name, got, want)
		}
	}
	log := gitLog(t)
	r.Ahead(ctx, head, head)
	if b, _ := os.ReadFile(log); len(b) > 0 {
		t.Errorf("Ahead of head itself asked git:\n%s", b)
	}
	testkit.Git(t, fx.Clone, "checkout", "--quiet", "main")
	testkit.Git(t, fx.Clone, "commit", "--quiet", "--allow-empty", "-m", "the base moves on")
	if got := r.Ahead(ctx, head, testkit.Git(t, fx.Clone, "rev-parse", "HEAD")); got != 0 {
		t.Errorf("Ahead of a diverged branch = %d, want 0", got)
	}
}

// A submodule pointer the PR moves, adds or renames (paths with spaces
// included) is in the PR's diff as GitHub shows it ("Subproject commit"),
// in the checkout's diff as in a local review's: a diff that left gitlinks
// out counted them as files the reviewers never got.
func TestDiffsShowSubmodulePointers(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"a.txt": "b\n"})
	one, two := strings.Repeat("1", 40), strings.Repeat("2", 40)
	testkit.Git(t, fx.Clone, "checkout", "-q", "main")
	testkit.Git(t, fx.Clone, "update-index", "--add", "--cacheinfo", "160000,"+one+",lib one")
	testkit.Git(t, fx.Clone, "update-index", "--add", "--cacheinfo", "160000,"+one+",lib two")
	testkit.Git(t, fx.Clone, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "submodules")
	base := testkit.Git(t, fx.Clone, "rev-parse", "HEAD")
	testkit.Git(t, fx.Clone, "checkout", "-q", "feature")
	testkit.Git(t, fx.Clone, "merge", "-q", "--no-edit", "main")
	testkit.Git(t, fx.Clone, "update-index", "--force-remove", "lib one")
	testkit.Git(t, fx.Clone, "update-index", "--add", "--cacheinfo", "160000,"+one+",vendor/lib one")
	testkit.Git(t, fx.Clone, "update-index", "--add", "--cacheinfo", "160000,"+two+",lib two")
	testkit.Git(t, fx.Clone, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "move and bump")
	r, _ := git.Open(ctx, fx.Clone)
	head, _ := r.Head(ctx)
	want := testkit.Git(t, fx.Clone, "diff", base+"..."+head) + "\n"

	rc, ok := r.OpenPRDiff(ctx, base, head)
	if !ok {
		t.Fatal("both commits are in the clone")
	}
	got, _ := io.ReadAll(rc)
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	local, err := r.Diff(ctx, base, head)
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string][]byte{"the PR's diff": got, "a local review's diff": local} {
		files, err := diff.Parse(d)
		if err != nil {
			t.Fatal(err)
		}
		var subs []string
		for _, f := range files {
			if f.IsSubmodule || f.IsRename {
				subs = append(subs, f.Path())
			}
		}
		if len(files) != 3 || !slices.Equal(subs, []string{"lib two", "vendor/lib one"}) {
			t.Errorf("%s: submodules %q of %d files:\n%s", name, subs, len(files), d)
		}
	}
	if string(got) != want {
		t.Errorf("the clone's diff is not GitHub's:\n%s\nwant:\n%s", got, want)
	}
}

// PushRemote is the branch's upstream remote as git's configuration names
// it, whatever the name; origin for a branch with none, or whose upstream
// is a local branch (".").
func TestPushRemoteIsTheBranchsUpstreamRemote(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature/x", nil, map[string]string{"a.txt": "a\n"})
	r, _ := git.Open(ctx, fx.Clone)
	testkit.Git(t, fx.Clone, "remote", "add", "their/fork", fx.Remote)
	testkit.Git(t, fx.Clone, "config", "branch.feature/x.remote", "their/fork")
	testkit.Git(t, fx.Clone, "branch", "--quiet", "no-upstream")
	testkit.Git(t, fx.Clone, "branch", "--quiet", "local", "main")
	testkit.Git(t, fx.Clone, "config", "branch.local.remote", ".")
	for branch, want := range map[string]string{"feature/x": "their/fork", "no-upstream": "origin", "local": "origin"} {
		if got := r.PushRemote(ctx, branch); got != want {
			t.Errorf("%s pushes to %q, want %q", branch, got, want)
		}
	}
}

// A path left unmerged by a conflict is a change like any other, named
// whole with its spaces.
func TestDirtyNamesAnUnmergedPath(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"con flict.txt": "base\n"}, map[string]string{"con flict.txt": "ours\n"})
	testkit.Git(t, fx.Clone, "checkout", "--quiet", "-b", "theirs", "origin/main")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"con flict.txt": "theirs\n"})
	testkit.Git(t, fx.Clone, "commit", "--quiet", "-am", "theirs")
	testkit.Git(t, fx.Clone, "checkout", "--quiet", "feature")
	if err := exec.Command("git", "-C", fx.Clone, "merge", "--quiet", "theirs").Run(); err == nil {
		t.Fatal("the merge was meant to conflict")
	}
	r, _ := git.Open(ctx, fx.Clone)
	st, err := r.Status(ctx)
	if err != nil || strings.Join(st.Dirty, "|") != "con flict.txt" || st.Branch != "feature" {
		t.Errorf("%+v %v", st, err)
	}
}

// The push sends the commit it is given, the one verified, not whatever
// HEAD names when it runs; and what its check learnt, that the pushed
// commit descends from the reviewed one, the next round's re-review does
// not ask again.
func TestPushSendsTheVerifiedCommitAndKnowsItDescends(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", nil, map[string]string{"b.txt": "b\n"})
	r, _ := git.Open(ctx, fx.Clone)
	reviewed := headOf(t, fx.Clone)
	testkit.WriteFiles(t, fx.Clone, map[string]string{"b.txt": "b2\n"})
	testkit.Git(t, fx.Clone, "commit", "-qam", "fix")
	verified := headOf(t, fx.Clone)
	testkit.WriteFiles(t, fx.Clone, map[string]string{"b.txt": "b3\n"})
	testkit.Git(t, fx.Clone, "commit", "-qam", "made while the push was confirmed")
	log := gitLog(t)

	if err := r.Push(ctx, "origin", "feature", reviewed, verified); err != nil {
		t.Fatal(err)
	}
	if got := fx.RemoteOID(t, "feature"); got != verified {
		t.Errorf("the remote is at %s, want the verified %s", got, verified)
	}
	if d, ok := r.DiffSince(ctx, reviewed, verified, ""); !ok || !strings.Contains(d, "+b2") {
		t.Errorf("the since-diff: %v\n%s", ok, d)
	}
	if b, _ := os.ReadFile(log); strings.Count(string(b), "--is-ancestor") != 1 {
		t.Errorf("want one merge-base --is-ancestor, for the push:\n%s", b)
	}
	if err := r.Push(ctx, "origin", "feature", reviewed, "HEAD"); err == nil {
		t.Error("a head that is no commit id was pushed")
	}
}

// Rounds of a re-review ask git each thing once: the since-diff and the
// whole diff of the same two commits are one diff when no base came in,
// and that the base's tip is in the head reviewed before is known from
// the round that reviewed that head.
func TestRereviewRoundsAskEachThingOnce(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"a.txt": "b\n"})
	base, first := fx.RemoteOID(t, "main"), fx.RemoteOID(t, "feature")
	commit := func(content string) string {
		testkit.WriteFiles(t, fx.Clone, map[string]string{"a.txt": content})
		testkit.Git(t, fx.Clone, "commit", "-qam", content)
		return headOf(t, fx.Clone)
	}
	second := commit("c\n")
	third := commit("d\n")
	r, _ := git.Open(ctx, fx.Clone)
	log := gitLog(t)

	for _, round := range [][2]string{{first, second}, {second, third}} {
		since, ok := r.DiffSince(ctx, round[0], round[1], base)
		whole, wok := r.DiffSince(ctx, round[0], round[1], "")
		if !ok || !wok || since != whole || !strings.Contains(since, "+"+strings.TrimSpace(testkit.Git(t, fx.Clone, "show", round[1]+":a.txt"))) {
			t.Fatalf("%s..%s: %v %v\n%s\n%s", round[0], round[1], ok, wok, since, whole)
		}
	}
	b, _ := os.ReadFile(log)
	count := func(sub string) int { return strings.Count(string(b), sub) }
	// Each round: its head descends from the one before; the diff. The
	// first round asks whether the base's tip is in first; the second
	// knows it is in second.
	if count(" diff ") != 2 || count("--is-ancestor") != 3 || count("merge-base --end-of-options") != 0 {
		t.Errorf("git ran:\n%s", b)
	}
}

// A local review asks git each thing once: the index's path with the work
// tree's, the merge base known to be a commit for the history scan, the
// diff and its files' counts in one process, a policy file in one process
// whether or not it is there. What it reads is what git's own commands
// say.
func TestLocalReviewAsksEachThingOnce(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n", "REVIEW.md": "be kind\n", "old name.txt": "same\nlines\nhere\n", "docs/x.md": "x\n"}, nil)
	testkit.Git(t, fx.Clone, "mv", "old name.txt", "new \"name\"\t.txt")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"a.txt": "a\nb\n", "bin.dat": "x\x00y", "sub dir/é.txt": "new\n"})
	testkit.Git(t, fx.Clone, "add", "-A")
	testkit.Git(t, fx.Clone, "commit", "-qm", "change")
	log := gitLog(t)

	r, err := git.Open(ctx, filepath.Join(fx.Clone, "sub dir"))
	if err != nil {
		t.Fatal(err)
	}
	mb, err := r.MergeBase(ctx, "main", "feature")
	if err != nil {
		t.Fatal(err)
	}
	head, _ := r.Head(ctx)
	if !r.HasCommits(ctx, mb, head) {
		t.Fatal("the merge base and head are here")
	}
	tree, err := r.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Diff(ctx, mb, tree)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := r.Numstat(ctx, mb, tree)
	if err != nil {
		t.Fatal(err)
	}
	guide, found, err := r.Blob(ctx, mb, "REVIEW.md")
	if err != nil || !found || string(guide) != "be kind\n" {
		t.Errorf("REVIEW.md at the merge base: %q %v %v", guide, found, err)
	}
	if _, found, err := r.Blob(ctx, mb, ".ocdx.json"); found || err != nil {
		t.Errorf("a file not there: %v %v", found, err)
	}
	if _, _, err := r.Blob(ctx, mb, "docs"); err == nil {
		t.Error("a directory was read as a file")
	}

	b, _ := os.ReadFile(log)
	// rev-parse (Open), merge-base, rev-parse HEAD, add and write-tree
	// (Snapshot), diff, and cat-file once for each file read.
	if n := strings.Count(string(b), "\n"); n != 9 {
		t.Errorf("%d git processes, want 9:\n%s", n, b)
	}
	if want := testkit.Git(t, fx.Clone, "diff", "--no-color", mb, tree); strings.TrimSpace(string(d)) != want {
		t.Errorf("the diff:\n%s\nwant:\n%s", d, want)
	}
	var got []string
	for _, s := range stats {
		got = append(got, fmt.Sprintf("%d %d %s", s.Additions, s.Deletions, s.Path))
	}
	want := []string{"1 0 a.txt", "0 0 bin.dat", "0 0 new \"name\"\t.txt", "1 0 sub dir/é.txt"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the files: %q, want %q", got, want)
	}
}
