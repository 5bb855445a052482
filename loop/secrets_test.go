package loop

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
)

func TestSecretFindingsOnAddedLinesOnly(t *testing.T) {
	diff := "diff --git a/cfg.go b/cfg.go\nindex 1..2 100644\n--- a/cfg.go\n+++ b/cfg.go\n@@ -1,4 +1,5 @@\n package cfg\n" +
		"-var old = \"ghp_removedremovedremoved0000\"\n context = \"AKIAIOSFODNN7EXAMPLE\"\n+var token = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"\n+var x = 1\n" +
		"@@ -20,2 +21,5 @@ func f() {\n ctx\n+-----BEGIN RSA PRIVATE KEY-----\n+MIIEowIBAAKCAQEA\n+-----END RSA PRIVATE KEY-----\n+pw := \"x\" // token = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"\n" +
		"diff --git a/gone.env b/gone.env\ndeleted file mode 100644\n--- a/gone.env\n+++ /dev/null\n@@ -1 +0,0 @@\n-SECRET=abcdefgh12345\n"
	got, err := SecretFindings(strings.NewReader(diff), "2026-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line int
		kind string
	}{{3, "github-token"}, {22, "private-key"}, {25, "github-token"}}
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		f := got[i]
		if f.File != "cfg.go" || f.Line == nil || *f.Line != w.line || f.Title != "Hard-coded "+w.kind+" added" || f.Priority != "P0" {
			t.Errorf("finding %d: %s:%v %q %s, want cfg.go:%d %s", i, f.File, f.Line, f.Title, f.Priority, w.line, w.kind)
		}
		if f.ID != finding.ID("security", f.File, f.Line, f.Title) || f.ID[:4] != "SEC-" {
			t.Errorf("finding %d: ID %s is not computed from its fields", i, f.ID)
		}
	}
	if fs, _ := SecretFindings(strings.NewReader("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), "now"); len(fs) != 0 {
		t.Errorf("a diff without secrets gave %+v", fs)
	}
	// Key names, fixtures and placeholders are no secret: a PR that adds
	// them is not blocked (a real PR's `oauthToken = "oauth_token"` was).
	ordinary := "diff --git a/c.go b/c.go\n--- a/c.go\n+++ b/c.go\n@@ -1 +1,5 @@\n x\n" +
		"+oauthToken = \"oauth_token\"\n+password_field = \"password\"\n+const TokenHeader = \"X-Auth-Token\"\n+token: ${GITHUB_TOKEN}\n"
	if fs, _ := SecretFindings(strings.NewReader(ordinary), "now"); len(fs) != 0 {
		t.Errorf("ordinary code gave %+v", fs)
	}
}

func TestIssuesToFixSendsEachIDOnce(t *testing.T) {
	f := finding.Finding{ID: "SEC-0a1b2c3d", Priority: "P0", Category: "security", File: "a.go", Title: "t"}
	toFix, _ := IssuesToFix([]finding.Finding{f, f}, nil)
	if len(toFix) != 1 {
		t.Errorf("issuesToFix holds %d copies of one ID", len(toFix))
	}
}

// The PR's own .gitattributes can have git show a text file as binary in
// the checkout, hiding its added lines from the secret scan: such a diff
// gives way to GitHub's, and the token in it is found.
func TestADiffGitShowsAsBinaryIsReadFromGitHub(t *testing.T) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	h := newHarness(t)
	h.opts.CanPush, h.opts.ReviewOnlyReason = false, "a fork"
	h.gh.diff = "diff --git a/config.go b/config.go\nnew file mode 100644\n--- /dev/null\n+++ b/config.go\n@@ -0,0 +1 @@\n+var Token = \"" + token + "\"\n"
	h.opts.LocalDiff = func(context.Context, string, string) (io.ReadCloser, bool) {
		return io.NopCloser(strings.NewReader("diff --git a/config.go b/config.go\nnew file mode 100644\nindex 0000000..1234567\nBinary files /dev/null and b/config.go differ\n")), true
	}
	h.reviewer.answers = []string{reviewerAnswer()}
	h.analyzer.answers = []string{analyzerAnswer()}

	res, err := h.run(t)

	if err != nil || res.Outcome == OutcomeConverged || len(res.Rounds) == 0 || res.Rounds[0].Counts.P0 != 1 {
		t.Fatalf("Run = %+v, %v: the token the checkout's diff hid was not found", res, err)
	}
}
