package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if err := r.Push(ctx, "origin", "feature", reviewed); err != nil {
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
	err := r.Push(ctx, "origin", "feature", head)
	var pe *git.PushError
	if !errors.As(err, &pe) || !pe.Moved || !strings.Contains(err.Error(), "moved on GitHub since gh-ocdx reviewed "+head[:7]) {
		t.Fatalf("want a moved branch, got %v", err)
	}
	if got := fx.RemoteOID(t, "feature"); got != theirs {
		t.Errorf("the remote must keep their commit %s, has %s", theirs, got)
	}
	if err := r.Push(ctx, "origin", "+feature", head); err == nil {
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

	err := r.Push(ctx, "origin", "feature", reviewed)
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

	err := r.Push(ctx, "origin", "feature", reviewed)
	if err == nil || !strings.Contains(err.Error(), "does not contain "+reviewed[:7]) {
		t.Fatalf("want a refusal, got %v", err)
	}
	if got := fx.RemoteOID(t, "feature"); got != reviewed {
		t.Errorf("the remote moved to %s", got)
	}
	for _, bad := range []string{"", "HEAD", "--all", reviewed[:7]} {
		if err := r.Push(ctx, "origin", "feature", bad); err == nil {
			t.Errorf("reviewed %q accepted", bad)
		}
	}
}

func TestDirtyNamesEveryChangedFileExactly(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n", " lead.txt": "x\n"}, nil)
	r, _ := git.Open(ctx, fx.Clone)
	testkit.WriteFiles(t, fx.Clone, map[string]string{"a.txt": "changed\n", " lead.txt": "changed\n", "new file.txt": "n\n"})
	got, err := r.Dirty(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{" lead.txt", "a.txt", "new file.txt"}
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

	if err := r.Push(ctx, "origin", "feature", fx.RemoteOID(t, "feature")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(fx.Clone, "pwned")); err == nil {
		t.Error("the push ran a pre-push hook from the work tree")
	}
}
