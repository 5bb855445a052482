package redact

import (
	"strings"
	"testing"
)

// FuzzForComment: no secret-like line and no `diff --git` survives, the
// line count of Secrets is kept, and text with neither is left unchanged.
func FuzzForComment(f *testing.F) {
	for _, s := range []string{
		"", "plain text\nsecond line", "key AKIAIOSFODNN7EXAMPLE here", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"-----BEGIN EC PRIVATE KEY-----\nabc\n-----END EC PRIVATE KEY-----\nafter",
		"```diff\ndiff --git a/x b/x\n+added sk-abcdefghijklmnopqrstuvwx\n```\nok",
		"xoxb-1-2 and github_pat_11AAAAAAAAAAAAAAAAAAAA_bbbbbbbbbbbbbbbbbbbbbbbbb",
		"é\u00a0diff --gitx", "\r\ndiff --git\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		secrets := Secrets(s)
		if strings.Count(secrets, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Secrets changed the number of lines:\n%q\n%q", s, secrets)
		}
		out := ForComment(s)
		for _, line := range strings.Split(out, "\n") {
			if secretLine().MatchString(line) {
				t.Fatalf("a secret survived: %q", line)
			}
			if strings.Contains(line, "diff --git") {
				t.Fatalf("a diff header survived: %q", line)
			}
		}
		if !secretLine().MatchString(s) && !strings.Contains(s, "diff --git") && out != s {
			t.Fatalf("text without secrets or diffs was changed:\n%q\n%q", s, out)
		}
	})
}
