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
		"BEGIN PRIVATE KEY", // without its dashes
		"gho_abcdefghijklmnopqrstuvwxyz0123456789",
		"ghu_abcdefghijklmnopqrstuvwxyz0123456789",
		"ghs_abcdefghijklmnopqrstuvwxyz0123456789",
		"ghr_abcdefghijklmnopqrstuvwxyz0123456789",
		"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
		"sk-proj-abcdefghijklmnopqrstuvwx",
		"ghp_abcd1234",                     // short ghp_ strings
		"sk_live_4eC39HqLyjWDarjtT1zdp7dc", // Stripe
		"rk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"npm_abcdefghijklmnopqrstuvwxyz0123456789",
		"xoxe-1-abcdefghijklmnop",
		"sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
	} {
		in := "before\nconst key = \"" + secret + "\" // oops\nafter"
		got := Secrets(in)
		if strings.Contains(got, secret) || got != "before\n[REDACTED]\nafter" {
			t.Errorf("%s: got %q", secret, got)
		}
	}
}

// TestMaskKeepsTheLineShape: text for models keeps everything but the
// secret value, and the marker says what it was.
func TestMaskKeepsTheLineShape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`+token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"`, `+token = "[SECRET:github-token]"`},
		{`+key: AKIAIOSFODNN7EXAMPLE # prod`, `+key: [SECRET:aws-access-key] # prod`},
		{`+SLACK=xoxp-1-2-3-abc`, `+SLACK=[SECRET:slack-token]`},
		{`+client = openai.New("sk-proj-abcdefghijklmnopqrstuvwx")`, `+client = openai.New("[SECRET:openai-key]")`},
		{`stripe.Key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"`, `stripe.Key = "[SECRET:stripe-key]"`},
		{`//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789`, `//registry.npmjs.org/:_authToken=[SECRET:npm-token]`},
		{`+DB_PASSWORD=hunter2hunter2`, `+DB_PASSWORD=[SECRET:password]`},
		{`+  password: "correct horse"`, `+  password: "correct horse"`}, // a space: prose, not a value
		{`+  password: "c0rrect-h0rse"`, `+  password: "[SECRET:password]"`},
		{`{"token": "abcdEFGH1234"}`, `{"token": "[SECRET:password]"}`},
		{`API_KEY='abcdEFGH1234'`, `API_KEY='[SECRET:password]'`},
		{`    oauth_token: 0123456789abcdef0123456789abcdef01234567`, `    oauth_token: [SECRET:github-token]`},
		{`+"key": "BEGIN RSA PRIVATE KEY MIIEowIBAAKCAQEA"`, `+"key": "[SECRET:private-key]"`},
	} {
		if got := Mask(tc.in); got != tc.want {
			t.Errorf("Mask(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestMaskLeavesPlaceholdersAndCode(t *testing.T) {
	for _, s := range []string{
		`PASSWORD=${DB_PASSWORD}`, `password: "<your password>"`, `password = "changeme123"`, `TOKEN=********`,
		`token := os.Getenv("GH_TOKEN")`, `Password: cfg.Password,`, `"token": token`, `PWD=/home/mona/src`,
		`max_tokens: 8192`, "`TOKEN=` assignments", `token = "[SECRET:github-token]"`, `password: xxxxxxxxxx`,
	} {
		if got := Mask(s); got != s {
			t.Errorf("Mask(%q) = %q", s, got)
		}
	}
}

func TestMaskAPrivateKeyBlockLineByLine(t *testing.T) {
	in := "+x\n+-----BEGIN OPENSSH PRIVATE KEY-----\n+b3BlbnNzaC1rZXktdjEAAAAA\n+-----END OPENSSH PRIVATE KEY-----\n+y"
	want := "+x\n+[SECRET:private-key]\n+[SECRET:private-key]\n+[SECRET:private-key]\n+y"
	if got := Mask(in); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	hits := Find(in)
	if len(hits) != 3 || hits[0].Line != 1 || hits[0].Continued || !hits[1].Continued {
		t.Errorf("Find: %+v", hits)
	}
}

// TestRegisteredCredentialsAreHidden: a credential gh-ocdx holds is hidden
// whatever its shape, also inside a longer word; short values are ignored.
func TestRegisteredCredentialsAreHidden(t *testing.T) {
	const cred = "qwertyuiopasdfghjklzxcvbnmqwertyuiopasdf"
	Register(cred, "short", "")
	in := "a\nuser:" + cred + "\nx" + cred + "y\nshort"
	if got, want := Mask(in), "a\nuser:[SECRET:credential]\nx[SECRET:credential]y\nshort"; got != want {
		t.Errorf("Mask: got %q want %q", got, want)
	}
	if got, want := ForComment(in), "a\n[REDACTED]\n[REDACTED]\nshort"; got != want {
		t.Errorf("ForComment: got %q want %q", got, want)
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

// TestAnAssignmentHoldsASecretOnlyWhenItsValueLooksLikeOne: each hit of an
// assignment is a P0 finding that blocks the loop. The value
// must be at least 8 characters, not a name, a fixture made of the key's
// words, a number or a repetition. The misses below are the price of that
// rule: short passwords and passwords of letters only.
func TestAnAssignmentHoldsASecretOnlyWhenItsValueLooksLikeOne(t *testing.T) {
	for _, tc := range []struct {
		line   string
		secret bool
	}{
		{`oauthToken = "oauth_token"`, false},                       // the key's own name
		{`token: "X-Auth-Token"`, false},                            // a header name
		{`API_KEY=MY_API_KEY`, false},                               // an environment variable's name
		{`password: "Password1"`, false},                            // the key's word and a digit: a fixture
		{`token = "test-token-42"`, false},                          // fixture words
		{`"token": "color.primary.500"`, false},                     // a design token's name
		{`token: 1234567890`, false},                                // a number
		{`password = "aaaaaaa1"`, false},                            // entropy share 0.18
		{`password = "hunter2"`, false},                             // 7 characters: under the threshold
		{`password = "correcthorsebattery"`, false},                 // letters only read as a name
		{`password = "hunter2hunter2"`, true},                       // entropy share 0.74
		{`password = "Summer2024!"`, true},                          // a word and a number is a password's shape
		{`password = "P@ssw0rd!"`, true},                            // not the key's word once its letters change
		{`password = "TjXkqPLmzRwB"`, true},                         // random letters: humps under three letters
		{`client_secret = "GOCSPX-4fT9kLm2Qx7Vb3Zr8Wn1Pj6H"`, true}, // random
	} {
		if got := len(Find(tc.line)) > 0; got != tc.secret {
			t.Errorf("Find(%q) found a secret: %v, want %v", tc.line, got, tc.secret)
		}
	}
}

// TestAKeyOfOneLineHidesNoOtherLine: a header followed by key material on
// its line is the whole key; the lines after it stay visible (a block
// opened there would hide the rest of the diff).
func TestAKeyOfOneLineHidesNoOtherLine(t *testing.T) {
	in := "+\"key\": \"BEGIN RSA PRIVATE KEY MIIEowIBAAKCAQEA\"\n+next line\n+key = \"-----BEGIN PRIVATE KEY-----\\n\"\n+MIIEvQ"
	want := "+\"key\": \"[SECRET:private-key]\"\n+next line\n+key = \"[SECRET:private-key]\"\n+[SECRET:private-key]"
	if got := Mask(in); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestAKeyNameStopsAtASecret: the words of a key stop at a secret found
// before it, as they stop at its marker once masked; the secret's letters
// are not the key's words, and the value after it is judged on its own.
func TestAKeyNameStopsAtASecret(t *testing.T) {
	in := "AKIAIOSFODNN7ABCDEFGH_token=abcdefgh99"
	if got, want := Mask(in), "[SECRET:aws-access-key]H_token=[SECRET:password]"; got != want {
		t.Errorf("Mask(%q) = %q, want %q", in, got, want)
	}
}
