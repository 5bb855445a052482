package preflight_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/preflight"
)

func TestLocal(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"b.txt": "b\n"})

	co, err := preflight.Local(ctx, fx.Clone)
	if err != nil {
		t.Fatal(err)
	}
	if co.Branch != "feature" || co.Head != testkit.Git(t, fx.Clone, "rev-parse", "HEAD") || co.Repo == nil {
		t.Errorf("checkout %+v", co)
	}

	if _, err := preflight.Local(ctx, t.TempDir()); !errors.Is(err, git.ErrNotRepo) {
		t.Errorf("not a repository: %v", err)
	}

	for i := range 7 {
		os.WriteFile(filepath.Join(fx.Clone, "new"+string(rune('a'+i))), []byte("x"), 0o644)
	}
	_, err = preflight.Local(ctx, fx.Clone)
	if !errors.Is(err, preflight.ErrDirty) || !strings.Contains(err.Error(), "newa") || !strings.Contains(err.Error(), "2 more") ||
		!strings.Contains(err.Error(), "commit or stash") {
		t.Errorf("dirty tree: %v", err)
	}
	if co, err := preflight.Resuming(ctx, fx.Clone); err != nil || len(co.Dirty) != 7 {
		t.Errorf("resuming lets a dirty tree through and lists it: %v", err)
	}
	for i := range 7 {
		os.Remove(filepath.Join(fx.Clone, "new"+string(rune('a'+i))))
	}

	testkit.Git(t, fx.Clone, "checkout", "--quiet", "--detach")
	if _, err := preflight.Local(ctx, fx.Clone); !errors.Is(err, preflight.ErrDetached) || !strings.Contains(err.Error(), "gh pr checkout") {
		t.Errorf("detached: %v", err)
	}
}

func TestCommands(t *testing.T) {
	if err := preflight.Commands([]string{"git status", "sh -c true"}, "your configuration"); err != nil {
		t.Fatal(err)
	}
	err := preflight.Commands([]string{"git status", "no-such-tool-ocdx lint"}, ".ocdx.json on main at 1a2b3c4")
	if !errors.Is(err, preflight.ErrMissingCommand) || !strings.Contains(err.Error(), `"no-such-tool-ocdx lint"`) ||
		!strings.Contains(err.Error(), ".ocdx.json on main at 1a2b3c4") {
		t.Errorf("missing command: %v", err)
	}
}

func TestPR(t *testing.T) {
	pr := func(state, head, perm string, fork bool) *github.PullRequest {
		return &github.PullRequest{Number: 24, State: state, HeadRefName: head, ViewerPermission: perm,
			IsCrossRepository: fork, HeadRepository: "octo/widgets"}
	}
	for _, tc := range []struct {
		name    string
		pr      *github.PullRequest
		branch  string
		push    bool
		wantErr error
		msg     string
	}{
		{"write", pr("OPEN", "feature", "WRITE", false), "feature", true, nil, ""},
		{"maintain", pr("OPEN", "feature", "MAINTAIN", false), "feature", true, nil, ""},
		{"admin", pr("OPEN", "feature", "ADMIN", false), "feature", true, nil, ""},
		{"fork read", pr("OPEN", "feature", "READ", true), "feature", false, nil, ""},
		{"triage", pr("OPEN", "feature", "TRIAGE", false), "feature", false, nil, ""},
		{"no permission", pr("OPEN", "feature", "", true), "feature", false, nil, ""},
		{"merged", pr("MERGED", "feature", "WRITE", false), "feature", false, preflight.ErrNotOpen, "PR #24 is merged"},
		{"closed", pr("CLOSED", "feature", "WRITE", false), "feature", false, preflight.ErrNotOpen, "PR #24 is closed"},
		{"wrong branch", pr("OPEN", "feature", "WRITE", false), "main", false, preflight.ErrWrongBranch, "gh pr checkout 24"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			push, err := preflight.PR(tc.pr, tc.branch)
			if !errors.Is(err, tc.wantErr) || (tc.msg != "" && !strings.Contains(err.Error(), tc.msg)) {
				t.Fatalf("err %v, want %v containing %q", err, tc.wantErr, tc.msg)
			}
			if push != tc.push {
				t.Errorf("canPush %v, want %v", push, tc.push)
			}
			if !push && err == nil && preflight.ReviewOnlyReason(tc.pr) == "" {
				t.Error("a review-only PR needs a reason")
			}
		})
	}
	gone := &github.PullRequest{Number: 3, State: "OPEN", HeadRefName: "x", ViewerPermission: "WRITE"}
	if push, _ := preflight.PR(gone, "x"); push || !strings.Contains(preflight.ReviewOnlyReason(gone), "deleted fork") {
		t.Error("a PR whose head repository is gone cannot be pushed to")
	}
}

// Local answers the same on the odd checkouts, from a subdirectory and
// with paths with spaces: an unborn branch and a detached HEAD are
// refused, a branch with no upstream passes. And it asks git twice: where
// the work tree is, then one git status for the branch, the head and the
// changes (docs/architecture.md, The verbs and their tests).
func TestLocalOnOddCheckoutsInTwoGitProcesses(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", nil, map[string]string{"sub dir/a b.txt": "a\n"})
	sub := filepath.Join(fx.Clone, "sub dir")
	testkit.Git(t, fx.Clone, "checkout", "--quiet", "-b", "no-upstream")

	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE", trace) // git's own log of the commands it runs
	co, err := preflight.Local(ctx, sub)
	raw, _ := os.ReadFile(trace)
	t.Setenv("GIT_TRACE", "")
	if err != nil || co.Repo.Dir != fx.Clone || co.Branch != "no-upstream" || co.Head != testkit.Git(t, fx.Clone, "rev-parse", "HEAD") {
		t.Fatalf("a branch with no upstream, from a subdirectory: %+v %v", co, err)
	}
	if n := strings.Count(string(raw), "trace: built-in: git "); n != 2 {
		t.Errorf("preflight ran git %d times, want 2:\n%s", n, raw)
	}

	testkit.WriteFiles(t, fx.Clone, map[string]string{"sub dir/a b.txt": "changed\n", "new dir/c d.txt": "new\n"})
	_, err = preflight.Local(ctx, sub)
	if !errors.Is(err, preflight.ErrDirty) || !strings.Contains(err.Error(), "(sub dir/a b.txt, new dir/c d.txt)") {
		t.Errorf("dirty, paths with spaces: %v", err)
	}
	if co, err := preflight.Resuming(ctx, sub); err != nil || strings.Join(co.Dirty, "|") != "sub dir/a b.txt|new dir/c d.txt" {
		t.Errorf("resuming: %+v %v", co, err)
	}
	testkit.Git(t, fx.Clone, "stash", "--quiet", "--include-untracked")

	testkit.Git(t, fx.Clone, "checkout", "--quiet", "--detach")
	if _, err := preflight.Local(ctx, sub); !errors.Is(err, preflight.ErrDetached) {
		t.Errorf("detached: %v", err)
	}
	testkit.Git(t, fx.Clone, "checkout", "--quiet", "-b", "(detached)")
	if co, err := preflight.Local(ctx, sub); err != nil || co.Branch != "(detached)" {
		t.Errorf(`a branch named "(detached)" is a branch: %+v %v`, co, err)
	}
	testkit.Git(t, fx.Clone, "checkout", "--quiet", "--orphan", "unborn")
	testkit.Git(t, fx.Clone, "rm", "--quiet", "-r", "--cached", ".")
	testkit.Git(t, fx.Clone, "clean", "--quiet", "-fd")
	if _, err := preflight.Local(ctx, fx.Clone); err == nil || !strings.Contains(err.Error(), "could not tell the current branch and commit") {
		t.Errorf("an unborn branch: %v", err)
	}
}
