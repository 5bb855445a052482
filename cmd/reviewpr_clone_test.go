package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// review-pr opens its clone once: the re-review's since-diff and each
// whole diff the posting follows findings through ask one git.Repo, so
// what git said of the reviewed head (it is an ancestor of the PR's head;
// the diff between them) is asked once, however often it is needed.
func TestReviewPRAsksItsCloneEachThingOnce(t *testing.T) {
	ctx := context.Background()
	fx := testkit.NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"a.txt": "b\n"})
	base, reviewed := fx.RemoteOID(t, "main"), fx.RemoteOID(t, "feature")
	testkit.WriteFiles(t, fx.Clone, map[string]string{"a.txt": "c\n"})
	testkit.Git(t, fx.Clone, "commit", "-qam", "since")
	head := testkit.Git(t, fx.Clone, "rev-parse", "HEAD")
	var errOut strings.Builder
	d := &cmdutil.Deps{WorkDir: fx.Clone, IO: &cmdutil.IOStreams{ErrOut: &errOut}, Getenv: func(string) string { return "" }}
	pr := &github.PullRequest{Number: 3, HeadRefOid: head, BaseRefOid: base}
	rc := change.NewContext(pr, nil, true, nil)
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE", trace)

	g := openClone(ctx, d)
	reReviewPR(ctx, d, g, rc, reviewed)
	whole := wholeDiff(ctx, g, head)
	for range 2 {
		if w, ok := whole(reviewed); !ok || !strings.Contains(w, "+c") {
			t.Fatalf("the whole diff since %s: %v\n%s", reviewed, ok, w)
		}
	}

	t.Setenv("GIT_TRACE", "")
	if rc.Since != reviewed || !strings.Contains(rc.Diff, "+c") {
		t.Errorf("not a re-review since %s: %q\n%s", reviewed, rc.Since, rc.Diff)
	}
	raw, _ := os.ReadFile(trace)
	count := func(sub string) int { return strings.Count(string(raw), sub) }
	// Open, the reviewed head in the PR's, the base's tip in the reviewed
	// head, the diff.
	if count("trace: built-in: git ") != 4 || count("rev-parse --show-toplevel") != 1 || count(" diff ") != 1 {
		t.Errorf("git ran:\n%s", raw)
	}
}
