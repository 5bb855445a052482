package redact

import (
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"", "plain text\nsecond line", "key AKIAIOSFODNN7EXAMPLE here", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	"-----BEGIN EC PRIVATE KEY-----\nabc\n-----END EC PRIVATE KEY-----\nafter",
	"```diff\ndiff --git a/x b/x\n+added sk-abcdefghijklmnopqrstuvwx\n```\nok",
	"xoxb-1-2 and github_pat_11AAAAAAAAAAAAAAAAAAAA_bbbbbbbbbbbbbbbbbbbbbbbbb",
	"é\u00a0diff --gitx", "\r\ndiff --git\r\n",
	"+BEGIN RSA PRIVATE KEY\n+MIIE\n+END RSA PRIVATE KEY", "ghp_abcd1234 sk_live_abcdefghij1234 npm_abcdefghijklmnopqrstuvwxyz0123456789",
	`PASSWORD=hunter2hunter2 "token": "abcdEFGH1234" password: '${X}'`, "oauth_token: 0123456789abcdef0123456789abcdef01234567",
	"x" + fuzzCred + "y token=zz" + fuzzCred,
	`oauthToken = "oauth_token"`, `password: "Password1" secret=hunter2hunter2`, "AKIAIOSFODNN7ABCDEFGH_token=abcdefgh99",
	"AKIAIOSFODNN7EXAMPLEsk-abcdefghijklmnopqrstu task-management-service-rollout", "+\"BEGIN RSA PRIVATE KEY MIIE\"\n+next",
	"GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxx sk-your-key-here-and-there Token: oauth2Token password=P4ssword",
}

// fuzzCred is registered by the fuzz targets: it must never come out.
const fuzzCred = "fuzzcredentialvalue0123"

// FuzzForComment: no secret, registered credential or `diff --git` survives,
// the line count of Secrets is kept, and text with neither is left unchanged.
func FuzzForComment(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	Register(fuzzCred)
	f.Fuzz(func(t *testing.T, s string) {
		secrets := Secrets(s)
		if strings.Count(secrets, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Secrets changed the number of lines:\n%q\n%q", s, secrets)
		}
		out := ForComment(s)
		for _, line := range strings.Split(out, "\n") {
			if len(Find(line)) > 0 || strings.Contains(line, fuzzCred) {
				t.Fatalf("a secret survived: %q", line)
			}
			if strings.Contains(line, "diff --git") {
				t.Fatalf("a diff header survived: %q", line)
			}
		}
		if len(Find(s)) == 0 && !strings.Contains(s, "diff --git") && out != s {
			t.Fatalf("text without secrets or diffs was changed:\n%q\n%q", s, out)
		}
	})
}

// FuzzMask: text for models keeps its lines, loses every secret value and
// registered credential, and is unchanged when it holds none.
func FuzzMask(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	Register(fuzzCred)
	f.Fuzz(func(t *testing.T, s string) {
		out := Mask(s)
		if strings.Count(out, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Mask changed the number of lines:\n%q\n%q", s, out)
		}
		if hits := Find(out); len(hits) > 0 || strings.Contains(out, fuzzCred) {
			t.Fatalf("a secret survived %+v:\n%q\n%q", hits, s, out)
		}
		if len(Find(s)) == 0 && out != s {
			t.Fatalf("text without secrets was changed:\n%q\n%q", s, out)
		}
		if Mask(out) != out {
			t.Fatalf("masking twice changed the text:\n%q\n%q", out, Mask(out))
		}
	})
}
