package redact

import (
	"strings"
	"testing"
)

func TestSecretsRedactsEachPattern(t *testing.T) {
	for _, secret := range []string{
		"AKIAIOSFODNN7EXAMPLE",
		"ASIAIOSFODNN7EXAMPLE",
		"xoxb-123456789012-abcdefABCDEF",
		"xoxp-1-2-3-abc",
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"gho_abcdefghijklmnopqrstuvwxyz0123456789",
		"ghu_abcdefghijklmnopqrstuvwxyz0123456789",
		"ghs_abcdefghijklmnopqrstuvwxyz0123456789",
		"ghr_abcdefghijklmnopqrstuvwxyz0123456789",
		"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
		"sk-proj-abcdefghijklmnopqrstuvwx",
	} {
		in := "before\nconst key = \"" + secret + "\" // oops\nafter"
		got := Secrets(in)
		if strings.Contains(got, secret) || got != "before\n[REDACTED]\nafter" {
			t.Errorf("%s: got %q", secret, got)
		}
	}
}

func TestSecretsRedactsAWholePrivateKeyBlock(t *testing.T) {
	in := "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\ny"
	if got := Secrets(in); got != "x\n[REDACTED]\n[REDACTED]\n[REDACTED]\n[REDACTED]\ny" {
		t.Errorf("got %q", got)
	}
}

func TestAnUnterminatedKeyBlockRedactsToTheEnd(t *testing.T) {
	in := "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nmore"
	if got := Secrets(in); got != "x\n[REDACTED]\n[REDACTED]\n[REDACTED]" {
		t.Errorf("got %q", got)
	}
}

func TestOrdinaryTextIsUnchanged(t *testing.T) {
	for _, s := range []string{"", "sk- is a prefix", "task-list", "the ghp_ prefix alone", "AKIA is how AWS keys start", "diff of two files"} {
		if Secrets(s) != s || ForComment(s) != s {
			t.Errorf("%q was changed", s)
		}
	}
}

func TestForCommentRedactsDiffBlocks(t *testing.T) {
	in := "Review:\n```diff\ndiff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-old\n+new\n context\n```\nThanks."
	want := "Review:\n```diff\n[DIFF REDACTED]\n```\nThanks."
	if got := ForComment(in); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
