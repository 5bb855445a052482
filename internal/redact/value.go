package redact

import (
	"math"
	"strings"
	"unicode"
)

// An assignment (password=, secret:, "token": …) names a secret; whether it
// holds one depends on its value alone. Each hit is a P0 finding that
// blocks the loop, so the value must look like a secret, not like the key
// names, identifiers, fixtures and placeholders ordinary code assigns
// (on a real PR, `oauthToken = "oauth_token"` was a P0). The checks, in order:
//
//   - at least minValue characters (the expression's {8,}): shorter
//     passwords such as `hunter2` are missed, as any threshold must miss
//     some; below it words and numbers of code abound;
//   - not a placeholder or a reference: `${VAR}`, `<your key>`, `changeme`,
//     `xxxx`, `{{ .Values.x }}`, `op://vault/item`, `^pattern$`, and when
//     unquoted, code (`cfg.Password`, `os.Getenv("X")`, `oauth2Token`);
//   - not a number, version or address (`8192`, `1.2.3`, `10.0.0.1:5432`);
//   - not a name: words of letters joined by _ - . / : or camel case,
//     with numbers as separate parts (`oauth_token`, `X-Auth-Token`,
//     `MY_API_KEY`, `color.primary.500`, `/run/secrets/db`). A password of
//     letters only (`correcthorsebattery`) reads as a name too and is left
//     to the reviewers; a random mix of cases does not (its words average
//     under three letters);
//   - not made of the key's own words and the words of fixtures
//     (`password: "Password1"`, `token: "testtoken42"`, `secret123`);
//   - Shannon entropy at least minEntropyShare of what its length and
//     character classes allow (`aaaaaaa1`, `--------` fail; any value drawn
//     at random passes).
//
// Values such as `hunter2hunter2`, `P@ssw0rd!`, `Summer2024!` or random keys
// are secrets. Keys of a fixed format are found by their shape alone,
// unless they are filler (`ghp_xxxx…`, `sk-your-key-here`).

// minValue is the shortest assignment value taken for a secret.
const minValue = 8

// minEntropyShare is the share of the highest entropy, per character, a
// value of its length and character classes could have. Random values
// score above 0.9; a word repeated with a digit scores about 0.7.
const minEntropyShare = 0.6

// fixtureWords make up values that name a secret in tests and examples.
var fixtureWords = []string{
	"password", "passwd", "pass", "pwd", "secret", "secrets", "token", "tokens", "key", "keys",
	"api", "auth", "access", "private", "oauth", "client", "value", "test", "tests", "testing",
	"fake", "dummy", "mock", "sample", "example", "placeholder", "change", "changeme", "me", "my",
	"your", "here", "default", "local", "dev", "foo", "bar", "baz", "qux", "none", "null", "empty",
	"invalid", "wrong", "bad", "good", "valid", "correct", "new", "old", "some", "user", "admin",
	"root", "guest", "demo", "not", "real",
}

// secretLike reports whether v, assigned to key, looks like a secret.
// quoted: v was written between quotes, so it is a literal, not code.
func secretLike(key, v string, quoted bool) bool {
	return len(v) >= minValue && !placeholder(v, quoted) && !reference(v) && !number(v) &&
		!name(v) && !ofWords(v, key) && entropyShare(v) >= minEntropyShare
}

// reference reports whether v points at a secret kept elsewhere: a URL
// without credentials (`op://vault/item/field`, `https://…/token`) or an
// AWS resource name.
func reference(v string) bool {
	if strings.HasPrefix(v, "arn:") {
		return true
	}
	scheme, rest, ok := strings.Cut(v, "://")
	if !ok || scheme == "" || strings.Contains(rest, "@") {
		return false
	}
	for _, r := range scheme {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}

// number reports whether v is digits and the punctuation of numbers,
// versions, times and addresses.
func number(v string) bool {
	return strings.Trim(v, "0123456789.,:_+-") == ""
}

// isSep reports whether r joins the parts of a name.
func isSep(r rune) bool { return strings.ContainsRune("_-./:", r) }

// name reports whether v reads as a name: letter words joined by
// separators or camel case, with numbers only as parts of their own or at
// the end of a part, and only when there is more than one part.
func name(v string) bool {
	parts := strings.FieldsFunc(v, isSep)
	if len(parts) == 0 {
		return false
	}
	for _, r := range v {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !isSep(r) {
			return false
		}
	}
	for _, p := range parts {
		body := strings.TrimRightFunc(p, unicode.IsDigit)
		if body != p && len(parts) == 1 {
			return false // `hunter22`, `Summer2024`: one word and a number is a password's shape
		}
		letters := 0
		for _, r := range body {
			if !unicode.IsLetter(r) {
				return false
			}
			letters++
		}
		// Random letters change case often: their humps average under
		// three letters (`TjXkqPLmzRwB`); a name's do not (`XAuthToken`).
		if words := len(splitWords(body)); words >= 3 && letters < 3*words {
			return false
		}
	}
	return true
}

// splitWords splits s at every character that is not a letter and at
// camel-case humps: `XAuthToken` is X, Auth, Token.
func splitWords(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	for i, r := range rs {
		if !unicode.IsLetter(r) {
			if start >= 0 {
				out = append(out, string(rs[start:i]))
				start = -1
			}
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			prevLower := unicode.IsLower(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])
			if prevLower || nextLower {
				out = append(out, string(rs[start:i]))
				start = i
			}
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, string(rs[start:]))
	}
	return out
}

// ofWords reports whether the letters of v, mostly letters, are only the
// words of key and of fixtures: `Password1` for password, `test-token-2`.
func ofWords(v, key string) bool {
	letters, other := 0, 0
	for _, r := range v {
		if unicode.IsLetter(r) {
			letters++
		} else {
			other++
		}
	}
	if letters == 0 || letters < other {
		return false
	}
	vocab := append([]string(nil), fixtureWords...)
	for _, w := range splitWords(key) {
		vocab = append(vocab, strings.ToLower(w))
	}
	for _, w := range splitWords(v) {
		if !segments(strings.ToLower(w), vocab) {
			return false
		}
	}
	return true
}

// segments reports whether s is a concatenation of words of vocab.
func segments(s string, vocab []string) bool {
	ok := make([]bool, len(s)+1) // ok[i]: s[:i] is made of words
	ok[0] = true
	for i := range len(s) {
		if !ok[i] {
			continue
		}
		for _, w := range vocab {
			if strings.HasPrefix(s[i:], w) {
				ok[i+len(w)] = true
			}
		}
	}
	return ok[len(s)]
}

// entropyShare is v's Shannon entropy per character over the highest its
// length and character classes allow: log2 of the smaller of its length
// and the size of the classes it uses (lower and upper case letters,
// digits, other).
func entropyShare(v string) float64 {
	counts := map[rune]int{}
	n, alphabet := 0, 0
	var lower, upper, digit, other bool
	for _, r := range v {
		counts[r]++
		n++
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		default:
			other = true
		}
	}
	for _, c := range []struct {
		in   bool
		size int
	}{{lower, 26}, {upper, 26}, {digit, 10}, {other, 33}} {
		if c.in {
			alphabet += c.size
		}
	}
	most := math.Log2(float64(min(n, alphabet)))
	if most == 0 {
		return 0
	}
	h := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h / most
}

// codeName reports whether an unquoted value is a name in code with a
// number in it (`PrivateKeyEd25519`, `oauth2Token`, `hmacSHA256`): words
// of two letters or more and one run of digits. Values such as
// `hunter2hunter2` or `Nm4kX9q2Lv7w` have more runs or one-letter humps.
func codeName(v string) bool {
	runs, prevDigit := 0, false
	for i, r := range v {
		d := r >= '0' && r <= '9'
		switch {
		case i == 0 && !unicode.IsLetter(r):
			return false
		case !d && !unicode.IsLetter(r) && r != '_' && r != '.':
			return false
		case d && !prevDigit:
			runs++
		}
		prevDigit = d
	}
	words := splitWords(v)
	if runs != 1 || len(words) < 2 {
		return false
	}
	for _, w := range words {
		if len([]rune(w)) < 2 {
			return false
		}
	}
	return true
}

// filler reports whether a key of a fixed format is a placeholder in
// documentation or an example file: `ghp_xxxxxxxxxxxx`, `sk-your-key-here`,
// `npm_0000…`, a key ending in eight times the same character.
func filler(v string) bool {
	l := strings.ToLower(v)
	if strings.Contains(l, "xxxx") || strings.Contains(l, "****") || strings.Contains(l, "your") {
		return true
	}
	return len(l) >= 8 && strings.Count(l[len(l)-8:], l[len(l)-1:]) == 8
}
