package git_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// The history streams take full commit IDs only: a name git would resolve
// (a branch, HEAD~1, :/text) or one it would read as an option is refused
// before git runs. A replace ref cannot stand in for one of the PR's
// commits.
func TestHistoryTakesFullCommitIDsOnly(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"b.txt": "b ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"})
	r, err := git.Open(ctx, fx.Clone)
	if err != nil {
		t.Fatal(err)
	}
	head := testkit.Git(t, fx.Clone, "rev-parse", "HEAD")
	base := testkit.Git(t, fx.Clone, "rev-parse", "HEAD~1")
	for _, pair := range [][2]string{{"main", head}, {base, "HEAD"}, {base, ":/b"}, {"--output=x", head}} {
		if _, ok := r.OpenHistory(ctx, pair[0], pair[1]); ok {
			t.Errorf("OpenHistory(%q, %q) ran", pair[0], pair[1])
		}
	}
	// A full ID of no commit here ends the stream as one the clone lacks.
	if p, ok := r.OpenHistory(ctx, base, strings.Repeat("1", 40)); !ok {
		t.Error("OpenHistory refused two full IDs")
	} else if io.Copy(io.Discard, p); !errors.Is(p.Close(), git.ErrNotHere) {
		t.Error("a commit not here is not said to be missing")
	}
	// The commits' objects are asked for by the full IDs the history named.
	for _, name := range []string{"main", "HEAD", ":/b", "--output=x", head[:7]} {
		if _, ok := r.OpenCommits(ctx, []string{head, name}); ok {
			t.Errorf("OpenCommits(%q) ran", name)
		}
	}
	// A replace ref has head stand for a commit without the token.
	clean := testkit.Git(t, fx.Clone, "commit-tree", testkit.Git(t, fx.Clone, "rev-parse", base+"^{tree}"), "-p", base, "-m", "clean")
	testkit.Git(t, fx.Clone, "replace", head, clean)
	p, ok := r.OpenHistory(ctx, base, head)
	if !ok {
		t.Fatal("OpenHistory refused two commits of the repository")
	}
	b, _ := io.ReadAll(p)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "commit "+head+" "+base+"\n") || !strings.Contains(string(b), "+b ghp_") {
		t.Errorf("the history of %s:\n%s", head, b)
	}
	c, ok := r.OpenCommits(ctx, []string{head})
	if !ok {
		t.Fatal("OpenCommits refused two commits of the repository")
	}
	b, _ = io.ReadAll(c)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), head+" commit ") || strings.Contains(string(b), "clean") {
		t.Errorf("the commits of %s:\n%s", head, b)
	}
}

// The PR's diff and its history are read without asking first whether
// their commits are here: a clone mostly has them, and a stream that
// fails for want of them says so (ErrNotHere), asked only then.
func TestStreamsAskWhetherTheirCommitsAreHereOnlyWhenTheyFail(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"a.txt": "b\n"})
	base, head := fx.RemoteOID(t, "main"), fx.RemoteOID(t, "feature")
	r, _ := git.Open(ctx, fx.Clone)
	read := func(open func(context.Context, string, string) (io.ReadCloser, bool), base string) error {
		s, ok := open(ctx, base, head)
		if !ok {
			t.Fatal("refused two full IDs")
		}
		io.Copy(io.Discard, s)
		return s.Close()
	}
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE", trace)
	for _, open := range []func(context.Context, string, string) (io.ReadCloser, bool){r.OpenPRDiff, r.OpenHistory} {
		if err := read(open, base); err != nil {
			t.Error(err)
		}
	}
	raw, _ := os.ReadFile(trace)
	if strings.Contains(string(raw), "cat-file") {
		t.Errorf("git was asked whether the commits are here:\n%s", raw)
	}
	for _, name := range []string{"main", ":/a", "--output=x", base[:7]} {
		if _, ok := r.OpenPRDiff(ctx, name, head); ok {
			t.Errorf("the diff from %q ran: full IDs only", name)
		}
	}
	missing := strings.Repeat("a", 40)
	for _, open := range []func(context.Context, string, string) (io.ReadCloser, bool){r.OpenPRDiff, r.OpenHistory} {
		if err := read(open, missing); !errors.Is(err, git.ErrNotHere) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a base not here: %v", err)
		}
	}
}
