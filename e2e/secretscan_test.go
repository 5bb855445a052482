package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// A token past the first MiB of the PR's diff, which the models are never
// shown, is still found: the secret scan reads the whole diff, so the run
// does not converge over it (before, a 1.2 MB generated file hid a ghp_
// token from the scan and the run converged, "large diff: sampled"). A
// diff GitHub will not send (406) is scanned from every page of the PR's
// files.
func TestLoopFindsASecretPastTheFirstMiB(t *testing.T) {
	t.Parallel()
	for _, status := range []int{0, 406} {
		t.Run(fmt.Sprint("diff status ", status), func(t *testing.T) {
			t.Parallel()
			secretPastTheFirstMiB(t, status)
		})
	}
}

func secretPastTheFirstMiB(t *testing.T, status int) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	var big strings.Builder
	big.WriteString("diff --git a/gen/data.txt b/gen/data.txt\nnew file mode 100644\n--- /dev/null\n+++ b/gen/data.txt\n")
	const lines = 30000 // 40 bytes each: 1.2 MB
	fmt.Fprintf(&big, "@@ -0,0 +1,%d @@\n", lines)
	for i := range lines {
		fmt.Fprintf(&big, "+generated row %06d, nothing to see....\n", i)
	}
	secret := "diff --git a/config.go b/config.go\nnew file mode 100644\n--- /dev/null\n+++ b/config.go\n@@ -0,0 +1,3 @@\n+package config\n+\n+var Token = \"" + token + "\"\n"
	lf := newLoop(t, func(pr *testkit.PR) { pr.Diff, pr.DiffStatus = big.String()+secret, status })
	if big.Len() < 1<<20+100_000 {
		t.Fatalf("the generated file is %d bytes, not past the 1 MiB the models get", big.Len())
	}
	for range 3 {
		lf.approveRound()
	}

	res := lf.run("--yes", "--json")

	wantCode(t, res, 3)
	var out struct {
		Label  string
		Rounds []struct {
			Findings []struct{ ID, Priority, File, Title string }
		}
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, res.Stdout)
	}
	if strings.HasPrefix(out.Label, "converged") || len(out.Rounds) == 0 {
		t.Fatalf("label %q over a diff that adds a token", out.Label)
	}
	found := false
	for _, f := range out.Rounds[0].Findings {
		found = found || (strings.HasPrefix(f.ID, "SEC-") && f.Priority == "P0" && f.File == "config.go" && f.Title == "Hard-coded github-token added")
	}
	if !found {
		t.Fatalf("no P0 SEC- finding on config.go in round 1: %+v", out.Rounds[0].Findings)
	}
	wantContains(t, "review report", lf.bodies()[0], "Hard-coded github-token added")
	if strings.Contains(res.Stdout, token) {
		t.Error("the token is in the output")
	}
}

// A file GitHub sends without a patch (too large for the files endpoint,
// after a 406 for the whole diff) is scanned from the checkout, where the
// PR's commits are: its token is found all the same.
func TestLoopScansAFileGitHubSendsWithoutAPatch(t *testing.T) {
	t.Parallel()
	const token = "ghp_zyxwvutsrqponmlkjihgfedcba9876543210"
	lf := newLoop(t, func(pr *testkit.PR) {
		pr.DiffStatus = 406
		pr.Files = append(testkit.ParseDiff(pr.Diff), testkit.File{Path: "gen/huge.go", Additions: 2, ChangeType: "ADDED"}) // no patch
	})
	testkit.WriteFiles(t, lf.repo.Clone, map[string]string{"gen/huge.go": "package gen\nvar Key = \"" + token + "\"\n"})
	testkit.Git(t, lf.repo.Clone, "add", "gen/huge.go")
	testkit.Git(t, lf.repo.Clone, "commit", "--quiet", "-m", "generated")
	testkit.Git(t, lf.repo.Clone, "push", "--quiet", "origin", "HEAD")
	for range 3 {
		lf.approveRound()
	}

	res := lf.run("--yes", "--json")

	wantCode(t, res, 3)
	var out struct {
		Rounds []struct {
			Findings []struct{ ID, Priority, File, Title string }
			Coverage struct{ Unscanned []string }
		}
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || len(out.Rounds) == 0 {
		t.Fatalf("--json: %v\n%s", err, res.Stdout)
	}
	found := false
	for _, f := range out.Rounds[0].Findings {
		found = found || (strings.HasPrefix(f.ID, "SEC-") && f.Priority == "P0" && f.File == "gen/huge.go")
	}
	if !found || len(out.Rounds[0].Coverage.Unscanned) != 0 {
		t.Fatalf("the token in the file without a patch: findings %+v, unscanned %v", out.Rounds[0].Findings, out.Rounds[0].Coverage.Unscanned)
	}
}
