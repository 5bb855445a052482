package secretscan

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
)

func TestSecretFindingsOnAddedLinesOnly(t *testing.T) {
	diff := "diff --git a/cfg.go b/cfg.go\nindex 1..2 100644\n--- a/cfg.go\n+++ b/cfg.go\n@@ -1,4 +1,5 @@\n package cfg\n" +
		"-var old = \"ghp_removedremovedremoved0000\"\n context = \"AKIAIOSFODNN7EXAMPLE\"\n+var token = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"\n+var x = 1\n" +
		"@@ -20,2 +21,5 @@ func f() {\n ctx\n+-----BEGIN RSA PRIVATE KEY-----\n+MIIEowIBAAKCAQEA\n+-----END RSA PRIVATE KEY-----\n+pw := \"x\" // token = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"\n" +
		"diff --git a/gone.env b/gone.env\ndeleted file mode 100644\n--- a/gone.env\n+++ /dev/null\n@@ -1 +0,0 @@\n-SECRET=abcdefgh12345\n"
	got, err := Findings(strings.NewReader(diff), "2026-01-01T00:00:00Z")
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
	if fs, _ := Findings(strings.NewReader("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), "now"); len(fs) != 0 {
		t.Errorf("a diff without secrets gave %+v", fs)
	}
	// Key names, fixtures and placeholders are no secret: a PR that adds
	// them is not blocked (a real PR's `oauthToken = "oauth_token"` was).
	ordinary := "diff --git a/c.go b/c.go\n--- a/c.go\n+++ b/c.go\n@@ -1 +1,5 @@\n x\n" +
		"+oauthToken = \"oauth_token\"\n+password_field = \"password\"\n+const TokenHeader = \"X-Auth-Token\"\n+token: ${GITHUB_TOKEN}\n"
	if fs, _ := Findings(strings.NewReader(ordinary), "now"); len(fs) != 0 {
		t.Errorf("ordinary code gave %+v", fs)
	}
}
