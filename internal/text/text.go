// Package text makes untrusted text inert before it reaches a terminal or a
// posted comment: PR titles, bodies, diffs, threads, model answers and tool
// arguments may carry terminal escape sequences that hide or rewrite what
// the user sees (conceal, set the title, erase a line, move the cursor).
// In a post, it also makes inert the markup only gh-ocdx may write there
// (InertMarkup).
// It also holds the few shorteners (ShortOID, FirstLine, OneLine, Clip)
// that progress lines, logs and reports in several packages share.
package text

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Inert returns s with every control character made visible, so that no
// sequence in it can act on a terminal: C0 controls as caret notation (ESC
// is "^[", BEL "^G"), DEL as "^?", C1 controls and the bidirectional
// overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder
// what is shown, as "<U+XXXX>". Newline and tab are kept, carriage return
// is dropped, and a byte that is not UTF-8 becomes U+FFFD: some terminals
// take a lone 0x9B for a control sequence.
func Inert(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		case special(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func special(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// clean reports whether s needs no change (the common case: no copy).
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			for _, r := range s[i:] {
				if r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || special(r) {
					return false
				}
			}
			return true
		}
	}
	return true
}

// Writer passes everything written to it through Inert. Each Write is
// treated whole: callers write whole strings (fmt.Fprint*), so a sequence
// cannot be split across writes to slip through.
type Writer struct {
	W io.Writer
}

func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Inert(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ShortOID is a commit id's first seven characters, as git abbreviates it.
func ShortOID(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}

// FirstLine is s up to its first line break.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// Fenced is body in a Markdown code fence of lang (GitHub's "suggestion"
// among them), the fence longer than any run of backticks in body, so that
// body cannot close it.
func Fenced(lang, body string) string {
	fence := "```"
	for strings.Contains(body, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + body + "\n" + fence
}

// OneLine is s with its line breaks and runs of blanks turned into single
// spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Clip cuts s to at most n bytes on a rune boundary, marking a cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// Head is s cut to at most n bytes on a rune boundary.
func Head(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	if n > len(s) {
		n = len(s)
	}
	return s[:n]
}

// Cut cuts s to at most n bytes on a rune boundary, marking a cut with
// "…[cut]" when there is room for it.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…[cut]"
	if n <= len(mark) {
		return Head(s, n)
	}
	return Head(s, n-len(mark)) + mark
}

// Excerpt is s trimmed and cut to at most n runes, marking a cut with "…".
func Excerpt(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n]) + "…"
}

// Cell keeps s on one line and bounded to n runes, for tables and list
// items of a post, with gh-ocdx's own markup made inert: titles, reasons and
// errors come from models and PRs.
func Cell(s string, n int) string {
	s = strings.ReplaceAll(OneLine(s), "|", "\\|")
	return InertMarkup(Excerpt(s, n))
}

// Prose is a model's or a person's text for a post, bounded to n runes,
// with gh-ocdx's own markup made inert (a suggestion fence, the hidden
// marker, tags and ledger): in a post only gh-ocdx writes those
// (docs/architecture.md, Posting).
func Prose(s string, n int) string { return InertMarkup(Excerpt(s, n)) }

// Distance is the Levenshtein distance between a and b, in bytes: the
// number of one-byte insertions, deletions and substitutions that make one
// the other. The names it compares (commands, configuration keys) are ASCII.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Markup that only gh-ocdx may write in a post (docs/architecture.md,
// Posting): a suggestion fence, which GitHub turns into a "Commit
// suggestion" button, and the HTML comments that hold its marker, tags and
// ledger. A fence opens a line, after up to three spaces or the markers of
// the block quotes and list items it sits in; the quick tests skip the
// regular expressions for text that cannot hold either.
var (
	reFence          = regexp.MustCompile("(?m)^((?:[ \t]*(?:>|[-*+]|[0-9]{1,9}[.)]))*[ \t]*)(`{3,}|~{3,})(.*)$")
	reSuggestion     = regexp.MustCompile(`(?i)suggestion`)
	reSuggestionLang = regexp.MustCompile(`(?i)(\blang\s*=\s*["']?\s*|language-)suggestion`)
	// reCommandLine finds a line a command reader would take for an /ocdx
	// command: /ocdx in any case after any blanks (the readers trim
	// Unicode white space), a carriage return counting as a line's end.
	reCommandLine = regexp.MustCompile(`(?i)(\A|[\n\r])([\t\v\f \x{85}\p{Z}]*)(/ocdx)`)
)

// HasCommandLine reports whether a line of s starts, after blanks, with
// /ocdx in any case: a line gh-ocdx's command readers, or a person, could
// take for a command.
func HasCommandLine(s string) bool {
	return mentionsCommand(s) && reCommandLine.MatchString(s)
}

// mentionsCommand is a fast test for "/ocdx" in any case, so that text
// without it skips the expression.
func mentionsCommand(s string) bool {
	for i := strings.IndexByte(s, '/'); i >= 0 && i+len("/ocdx") <= len(s); {
		if strings.EqualFold(s[i:i+len("/ocdx")], "/ocdx") {
			return true
		}
		j := strings.IndexByte(s[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// InertMarkup returns s, text a model or a PR wrote, with gh-ocdx's own
// markup made inert, so that it posts as what it is: words. A code fence
// whose info string names a suggestion (any case, backticks or tildes, in
// a quote or a list) opens a plain "text" block instead, and so does raw
// HTML asking for a suggestion's language; "<!" (an HTML comment, which
// GitHub hides and gh-ocdx reads its marker, tags and ledger from, or a
// declaration) is written "&lt;!", which shows the same and hides nothing.
// A line starting with /ocdx (after blanks, in any case) starts with the
// code span `/ocdx` instead: it shows the same words, set apart as quoted,
// and no command reader (which reads a line starting with /ocdx) takes it
// for one.
// Only gh-ocdx's own rendering of a replacement checked against the diff
// (finding.SuggestionBlock) writes a suggestion; it is never passed here.
func InertMarkup(s string) string {
	if strings.Contains(s, "<!") {
		s = strings.ReplaceAll(s, "<!", "&lt;!")
	}
	if HasCommandLine(s) {
		s = reCommandLine.ReplaceAllString(s, "${1}${2}`${3}`")
	}
	if !mentionsSuggestion(s) {
		return s
	}
	s = reFence.ReplaceAllStringFunc(s, func(line string) string {
		m := reFence.FindStringSubmatch(line)
		prefix, fence, info := m[1], m[2], m[3]
		if !reSuggestion.MatchString(info) || fence[0] == '`' && strings.Contains(info, "`") {
			return line // no suggestion, or no fence: CommonMark's backtick fence has no backtick in its info string
		}
		return prefix + fence + "text"
	})
	return reSuggestionLang.ReplaceAllString(s, "${1}text")
}

// mentionsSuggestion is reSuggestion.MatchString(s), fast: a report runs
// every title and description through InertMarkup, and a case-folding
// regular expression scans text several times slower than this loop. The
// expression is left for text holding "ſ", which folds to "s".
func mentionsSuggestion(s string) bool {
	for i := 0; i+len("suggestion") <= len(s); i++ {
		if s[i]|0x20 == 's' && strings.EqualFold(s[i:i+len("suggestion")], "suggestion") {
			return true
		}
	}
	return strings.Contains(s, "ſ") && reSuggestion.MatchString(s)
}

// Thousands writes n with a comma between each group of three digits, as
// people read counts: 38,400.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// CodeSpan is s as a code span no backtick in it closes. Its text is
// inert too: GitHub shows a code span as written, but gh-ocdx's readers
// look for its tags in the raw body, where a file named after one would
// pass for a tag of gh-ocdx's own comment.
func CodeSpan(s string) string {
	s = InertMarkup(OneLine(s))
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}
