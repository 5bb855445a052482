// Package redact removes secrets and raw diffs from text that leaves the
// machine. Text for models keeps its shape: each secret value becomes a
// [SECRET:kind] marker, so reviewers can still report it. Posted comments
// lose every line that held a secret, and their raw diffs.
package redact

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Kinds of secret, as markers name them.
const (
	KindAWS        = "aws-access-key"
	KindPrivateKey = "private-key"
	KindSlack      = "slack-token"
	KindGitHub     = "github-token"
	KindOpenAI     = "openai-key"
	KindAnthropic  = "anthropic-key"
	KindStripe     = "stripe-key"
	KindNPM        = "npm-token"
	KindPassword   = "password"
	// KindCredential is the value of a credential gh-ocdx itself holds
	// (see Register), whatever its shape.
	KindCredential = "credential"
)

// Redacted replaces a line that held a secret in a posted comment.
const Redacted = "[REDACTED]"

// DiffRedacted replaces a `diff --git` block in a comment.
const DiffRedacted = "[DIFF REDACTED]"

// markerPrefix starts every marker; a value holding it is already masked.
const markerPrefix = "[SECRET:"

// Marker is what replaces a secret of kind in text sent to a model.
func Marker(kind string) string { return markerPrefix + kind + "]" }

// rule finds one kind of secret. The value to hide is the last non-empty
// submatch, or the whole match when the expression has no group. A rule
// runs only on a line holding one of its words (in lower case): one scan
// for words is far cheaper than a regular expression over every byte.
type rule struct {
	kind    string
	words   []string
	re      string
	generic bool // an assignment: its value must look like a secret (secretLike)
}

// rules are ours, informed by the common public rule sets (gitleaks'
// among them): linking such a set costs megabytes and milliseconds of every
// start. Specific shapes come first; an overlapping later match is dropped.
var rules = []rule{
	{KindAWS, []string{"akia", "asia"}, `(?:AKIA|ASIA)[0-9A-Z]{16}`, false},
	{KindPrivateKey, []string{"private key"}, `(?:-----)?BEGIN[A-Z0-9 ]*PRIVATE KEY[^"'\x60]*`, false},
	{KindSlack, []string{"xox"}, `xox[abposre]-[0-9A-Za-z-]+`, false},
	{KindGitHub, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, `gh[pousr]_[0-9A-Za-z]{8,}|github_pat_[0-9A-Za-z_]{8,}`, false},
	{KindGitHub, []string{"oauth_token"}, `(?i)oauth_token["']?\s*[:=]\s*["']?([0-9a-f]{40})`, false},
	// sk- and rk_ end ordinary words (task-management-service,
	// bookmark_test_helpers): these keys start a word. A marker's ] counts
	// as a letter, so masking what precedes a word never makes it a key.
	{KindAnthropic, []string{"sk-ant-"}, `(?:^|[^0-9A-Za-z\]])(sk-ant-[0-9A-Za-z_-]{16,})`, false},
	{KindStripe, []string{"_live_", "_test_", "_prod_"}, `(?:^|[^0-9A-Za-z\]])([sr]k_(?:live|test|prod)_[0-9A-Za-z]{10,})`, false},
	{KindOpenAI, []string{"sk-"}, `(?:^|[^0-9A-Za-z\]])(sk-[0-9A-Za-z_-]{16,})`, false},
	{KindNPM, []string{"npm_"}, `npm_[0-9A-Za-z]{36,}`, false},
	// PASSWORD=…, api_key: "…", "token": "…", DB_PASSWORD='…', when the
	// value looks like a secret (secretLike).
	{KindPassword, []string{"passw", "secret", "token", "key"},
		`(?i)(?:password|passwd|secret|secret[_-]?key|token|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key)s?["']?[ \t]*(?::=|=>|=|:)[ \t]*(?:"([^"\s]{8,})"|'([^'\s]{8,})'|([^\s"'\x60,;]{8,}))`, true},
}

type compiled struct {
	rule
	re *regexp.Regexp
}

// compiledRules are compiled on first use, not at start-up.
var compiledRules = sync.OnceValue(func() []compiled {
	out := make([]compiled, len(rules))
	for i, r := range rules {
		out[i] = compiled{r, regexp.MustCompile(r.re)}
	}
	return out
})

// mayHold reports whether lower (text in lower case) holds a word of r.
func (r rule) mayHold(lower string) bool {
	for _, w := range r.words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// identifier is an unquoted assignment value that reads as code
// (cfg.Password, userInput), not as a literal secret.
var identifier = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_$][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$`)
})

// placeholder reports whether an assignment's value stands for a secret
// instead of being one.
func placeholder(v string, quoted bool) bool {
	l := strings.ToLower(v)
	switch {
	case strings.Contains(v, markerPrefix), strings.Contains(v, Redacted),
		strings.HasPrefix(v, "$"), strings.HasPrefix(v, "%"), strings.Contains(v, "{{"), strings.Contains(v, "${"),
		strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">"), strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}"),
		strings.Contains(v, "..."), strings.Contains(v, "…"),
		strings.Contains(v, "***"), strings.Contains(l, "xxxx"), strings.Contains(l, "changeme"),
		strings.Contains(l, "placeholder"), strings.Contains(l, "example"), strings.Contains(l, "redacted"):
		return true
	case strings.HasPrefix(v, "^") && strings.HasSuffix(v, "$"): // a pattern
		return true
	case !quoted:
		return strings.ContainsAny(v, "()[]{}<>") || identifier().MatchString(v) || codeName(v)
	}
	return false
}

// keyAt returns the whole key whose secret word starts at i:
// `oauthToken` around `Token`, `DB_PASSWORD` around `PASSWORD`. It stops
// at a secret already found, as it stops at its marker once masked: the
// same line must give the same answer after masking.
func keyAt(line string, i int, found []span) string {
	isKey := func(c byte) bool {
		return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	inFound := func(j int) bool {
		for _, s := range found {
			if s.start <= j && j < s.end {
				return true
			}
		}
		return false
	}
	a, b := i, i
	for a > 0 && isKey(line[a-1]) && !inFound(a-1) {
		a--
	}
	for b < len(line) && isKey(line[b]) {
		b++
	}
	return line[a:b]
}

// known holds the values of the credentials gh-ocdx uses. It is one set for
// the process, filled at start-up, rather than a value handed to each
// client: every model request and every post reads it through this package,
// so no constructor or caller can leave it out.
var known struct {
	sync.RWMutex
	values []string // longest first, so a value inside another is not left half shown
}

// MinKnown is the shortest credential value Register keeps: shorter ones
// would mask ordinary words.
const MinKnown = 8

// Register adds credential values to hide wherever they appear, also inside
// longer words. Values shorter than MinKnown, or holding a line break, are
// ignored.
func Register(values ...string) {
	known.Lock()
	defer known.Unlock()
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < MinKnown || strings.ContainsAny(v, "\r\n") || slices.Contains(known.values, v) {
			continue
		}
		// A new slice each time: readers hold the old one without the lock.
		i := 0
		for i < len(known.values) && len(known.values[i]) >= len(v) {
			i++
		}
		next := make([]string, 0, len(known.values)+1)
		next = append(append(append(next, known.values[:i]...), v), known.values[i:]...)
		known.values = next
	}
}

func knownValues() []string {
	known.RLock()
	defer known.RUnlock()
	return known.values
}

// span is one secret value in a line.
type span struct {
	start, end int
	kind       string
}

// hasSecret is the quick test on a whole text.
func hasSecret(s string, vals []string) bool {
	for _, v := range vals {
		if strings.Contains(s, v) {
			return true
		}
	}
	lower := strings.ToLower(s)
	for _, r := range rules {
		if r.mayHold(lower) {
			return true
		}
	}
	return false
}

// find returns the secret values of one line, in order, not overlapping.
func find(line string, vals []string) []span {
	var out []span
	for _, v := range vals {
		var c []span
		for off := 0; ; {
			i := strings.Index(line[off:], v)
			if i < 0 {
				break
			}
			c = append(c, span{off + i, off + i + len(v), KindCredential})
			off += i + len(v)
		}
		out = merge(out, c)
	}
	lower := strings.ToLower(line)
	for _, r := range compiledRules() {
		if !r.mayHold(lower) {
			continue
		}
		var c []span
		for _, m := range r.re.FindAllStringSubmatchIndex(line, -1) {
			a, b := m[0], m[1]
			quoted := false
			for g := len(m)/2 - 1; g >= 1; g-- {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					a, b = m[2*g], m[2*g+1]
					quoted = r.generic && g < 3
					break
				}
			}
			if r.generic && !secretLike(keyAt(line, m[0], out), line[a:b], quoted) ||
				!r.generic && r.kind != KindPrivateKey && filler(line[a:b]) {
				continue
			}
			c = append(c, span{a, b, r.kind})
		}
		out = merge(out, c)
	}
	return out
}

// merge adds to kept the candidates that overlap none of its spans. Both
// are in order and without overlaps, and so is the result: one pass, as a
// hostile line may hold many thousands of matches.
func merge(kept, cand []span) []span {
	if len(cand) == 0 {
		return kept
	}
	out := make([]span, 0, len(kept)+len(cand))
	i := 0
	for _, c := range cand {
		for i < len(kept) && kept[i].end <= c.start {
			out = append(out, kept[i])
			i++
		}
		if i < len(kept) && kept[i].start < c.end {
			continue
		}
		out = append(out, c)
	}
	return append(out, kept[i:]...)
}

// keyStarts reports whether a line's private key header opens a block that
// continues on the next lines: the header ends the line. A header followed
// by key material on its line (`"BEGIN RSA PRIVATE KEY MIIEow…"`) is a key
// of one line: taking it for a block would hide every line after it.
func keyStarts(line string, sp []span) bool {
	for _, s := range sp {
		if s.kind != KindPrivateKey {
			continue
		}
		if keyEnds(line[s.start+5 : s.end]) {
			continue // BEGIN … END on one line
		}
		m := line[s.start:s.end]
		after := strings.NewReplacer(`\n`, "", `\r`, "").Replace(m[strings.Index(m, "PRIVATE KEY")+len("PRIVATE KEY"):])
		return strings.Trim(after, "- \t\r") == "" && strings.TrimRight(line[s.end:], " \t\r\"'`,;") == ""
	}
	return false
}

// keyEnds reports whether a line inside a private key block closes it.
func keyEnds(line string) bool {
	i := strings.Index(line, "END")
	return i >= 0 && strings.Contains(line[i:], "PRIVATE KEY")
}

// Hit is a secret found in a line of text.
type Hit struct {
	Line int    // 0-based index of the line in the text
	Kind string // what it is
	// Continued: a line inside a private key block, after its header.
	Continued bool
}

// Find lists the secrets in s, line by line, as Mask would hide them.
func Find(s string) []Hit {
	vals := knownValues()
	if !hasSecret(s, vals) {
		return nil
	}
	var out []Hit
	scan(s, vals, func(i int, line string, sp []span, inKey bool) string {
		if inKey {
			out = append(out, Hit{Line: i, Kind: KindPrivateKey, Continued: true})
		}
		for _, x := range sp {
			out = append(out, Hit{Line: i, Kind: x.kind})
		}
		return line
	})
	return out
}

// scan calls f for each line with its secrets and whether it is inside a
// private key block (then sp is nil), and joins what f returns.
func scan(s string, vals []string, f func(i int, line string, sp []span, inKey bool) string) string {
	lines := strings.Split(s, "\n")
	inKey := false
	for i, l := range lines {
		if inKey {
			inKey = !keyEnds(l)
			lines[i] = f(i, l, nil, true)
			continue
		}
		sp := find(l, vals)
		inKey = keyStarts(l, sp)
		lines[i] = f(i, l, sp, false)
	}
	return strings.Join(lines, "\n")
}

// Mask hides every secret value in text sent to a model and keeps the rest
// of the line: `+token = "ghp_…"` becomes `+token = "[SECRET:github-token]"`.
// A line inside a private key block keeps only its first character when it
// is a diff's +, - or space.
func Mask(s string) string {
	vals := knownValues()
	if !hasSecret(s, vals) {
		return s
	}
	return scan(s, vals, func(_ int, line string, sp []span, inKey bool) string {
		if inKey {
			if line != "" && strings.ContainsRune("+- ", rune(line[0])) {
				return line[:1] + Marker(KindPrivateKey)
			}
			return Marker(KindPrivateKey)
		}
		if len(sp) == 0 {
			return line
		}
		var b strings.Builder
		last := 0
		for _, x := range sp {
			b.WriteString(line[last:x.start])
			b.WriteString(Marker(x.kind))
			last = x.end
		}
		b.WriteString(line[last:])
		return b.String()
	})
}

// Secrets replaces every line that holds a secret with [REDACTED], the
// lines of a private key block up to its END line included. Other text is
// returned unchanged. This is the rule for posted text.
func Secrets(s string) string {
	vals := knownValues()
	if !hasSecret(s, vals) {
		return s
	}
	return scan(s, vals, func(_ int, line string, sp []span, inKey bool) string {
		if inKey || len(sp) > 0 {
			return Redacted
		}
		return line
	})
}

// ForComment prepares text for a PR comment: secrets redacted and every
// `diff --git` block replaced by one [DIFF REDACTED] line. A block runs from
// its `diff --git` line while the lines look like a unified diff.
func ForComment(s string) string {
	s = Secrets(s)
	if !strings.Contains(s, "diff --git") {
		return s
	}
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	inDiff := false
	for _, l := range lines {
		if strings.Contains(l, "diff --git") {
			if !inDiff {
				out = append(out, DiffRedacted)
			}
			inDiff = true
			continue
		}
		if inDiff && isDiffLine(l) {
			continue
		}
		inDiff = false
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

var diffPrefixes = []string{"+", "-", " ", "@@", "\\", "index ", "new file mode", "deleted file mode",
	"old mode", "new mode", "similarity index", "dissimilarity index", "rename from", "rename to",
	"copy from", "copy to", "Binary files"}

func isDiffLine(l string) bool {
	for _, p := range diffPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}
