package git_test

import (
	"context"
	"io"
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
	for _, pair := range [][2]string{{"main", head}, {base, "HEAD"}, {base, ":/b"}, {"--output=x", head}, {base, strings.Repeat("1", 40)}} {
		if _, ok := r.OpenHistory(ctx, pair[0], pair[1]); ok {
			t.Errorf("OpenHistory(%q, %q) ran", pair[0], pair[1])
		}
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
