package github_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// ReadDiff gives scan the whole diff and keeps its first limit bytes, in
// one request; after a 406 it gives scan every page of the files endpoint.
func TestReadDiffStreamsTheWholeDiffOnce(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 250 {
		fmt.Fprintf(&b, "diff --git a/f%03d b/f%03d\n--- a/f%03d\n+++ b/f%03d\n@@ -1 +1 @@\n-old\n+new %d\n", i, i, i, i, i)
	}
	diff := b.String()
	for _, tc := range []struct {
		status   int
		requests string
	}{{0, "diff"}, {406, "files"}} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			gh := testkit.NewGitHub(t)
			gh.AddPR("octo/widgets", testkit.PR{Number: 1, Diff: diff, DiffStatus: tc.status})
			c := newClient(t, gh)
			var scanned []byte
			head, complete, err := c.ReadDiff(context.Background(), repo, 1, 100, func(r io.Reader) error {
				var err error
				scanned, err = io.ReadAll(r)
				return err
			})
			if err != nil || complete || len(head) != 100 || !strings.HasPrefix(string(scanned), string(head)) {
				t.Fatalf("head %q complete %v err %v", head, complete, err)
			}
			if n := strings.Count(string(scanned), "\n+new "); n != 250 {
				t.Errorf("scan saw %d of the 250 files", n)
			}
			if want := map[string]int{"diff": 1, "files": 3}[tc.requests]; gh.Count(tc.requests) != want {
				t.Errorf("%d %s requests, want %d", gh.Count(tc.requests), tc.requests, want)
			}
		})
	}
}
