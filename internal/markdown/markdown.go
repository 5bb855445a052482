// Package markdown renders gh-ocdx's own Markdown (reports, proposed
// reviews, config show, state show) for a terminal: headings, lists,
// emphasis, code spans and blocks, tables, links, quotes, rules, and the
// <details>/<summary> of a report as plain text. It replaces go-gh's
// renderer (glamour), whose syntax highlighter costs ~17 ms of package
// initialisation at every start of the binary; this package initialises
// nothing that costs (docs/architecture.md, Output).
//
// Text from outside may be hostile. Every piece of the source that reaches
// the output, after character references and escapes are decoded, goes
// through text.Inert, so the only escape sequences in the result are the styles
// this package adds itself, and none at all with the Plain theme.
package markdown

import (
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// Theme is the set of styles: Plain writes no escape sequence at all.
type Theme int

const (
	Plain Theme = iota
	Dark
	Light
)

// style holds the SGR parameters of each element; empty is unstyled.
type style struct {
	h1, heading, strong, em, code, link, url, rule, quote, codeBlock, tableHead, border string
}

// The colours are glamour's dark and light styles, as gh pr view shows them.
var styles = map[Theme]style{
	Dark: {h1: "38;5;228;48;5;63;1", heading: "38;5;39;1", strong: "1", em: "3", code: "38;5;203;48;5;236",
		link: "38;5;35;1", url: "38;5;30;4", rule: "38;5;240", quote: "38;5;244", codeBlock: "38;5;251", tableHead: "1", border: "38;5;240"},
	Light: {h1: "38;5;228;48;5;63;1", heading: "38;5;27;1", strong: "1", em: "3", code: "38;5;203;48;5;254",
		link: "38;5;36;1", url: "38;5;30;4", rule: "38;5;249", quote: "38;5;243", codeBlock: "38;5;238", tableHead: "1", border: "38;5;249"},
}

// margin is the left margin of the whole document, as glamour's.
const margin = "  "

// Render returns md rendered for a terminal width columns wide: paragraphs
// are word-wrapped to it (a word longer than a line is left whole), code
// blocks and tables are not. Line breaks in a paragraph are kept, as gh
// keeps them.
func Render(md string, width int, theme Theme) string {
	blocks := parse(strings.ReplaceAll(md, "\r\n", "\n"))
	r := &renderer{theme: theme, st: styles[theme]}
	if width <= len(margin)+10 {
		width = len(margin) + 10
	}
	lines := r.container(blocks, width-len(margin), false)
	var b strings.Builder
	b.WriteString("\n")
	for _, l := range lines {
		if l != "" {
			b.WriteString(margin)
			b.WriteString(l)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.String()
}

type renderer struct {
	theme Theme
	st    style
}

// paint wraps s in the style's sequence; with Plain, or no style, s as it is.
func (r *renderer) paint(sgr, s string) string {
	if sgr == "" || s == "" || r.theme == Plain {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// container renders blocks one after the other, with a blank line between
// them unless tight (the items of a tight list).
func (r *renderer) container(blocks []*block, width int, tight bool) []string {
	var out []string
	for _, c := range blocks {
		ls := r.block(c, width)
		if len(ls) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	return out
}

func (r *renderer) block(b *block, width int) []string {
	switch b.kind {
	case kHeading:
		spans := r.inline(parseInline(b.text), "")
		if r.theme == Plain {
			return wrap(append([]span{{text: strings.Repeat("#", b.level) + " "}}, spans...), width, r)
		}
		sgr := r.st.heading
		if b.level == 1 {
			sgr = r.st.h1
			spans = append(append([]span{{text: " ", whole: true}}, spans...), span{text: " ", whole: true})
		} else {
			spans = append([]span{{text: strings.Repeat("#", b.level) + " "}}, spans...)
		}
		for i := range spans {
			spans[i].sgr = join(sgr, spans[i].sgr)
		}
		return wrap(spans, width, r)
	case kPara:
		return wrap(r.inline(parseInline(b.text), ""), width, r)
	case kRule:
		return []string{r.paint(r.st.rule, "--------")}
	case kCode:
		var out []string
		for _, l := range strings.Split(b.text, "\n") {
			l = strings.ReplaceAll(text.Inert(l), "\t", "    ")
			out = append(out, "  "+r.paint(r.st.codeBlock, l))
		}
		return out
	case kQuote:
		bar := "│ "
		if r.theme == Plain {
			bar = "| "
		}
		inner := r.container(b.children, width-2, false)
		for i, l := range inner {
			inner[i] = r.paint(r.st.quote, bar) + l
		}
		return inner
	case kList:
		return r.list(b, width)
	case kHTML:
		// Tags and comments are dropped, as glamour dropped them: a
		// report's <details><summary>Role reports</summary> shows as
		// "Role reports".
		var out []string
		for _, l := range strings.Split(stripTags(b.text), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, wrap(r.inline(parseInline(l), ""), width, r)...)
			}
		}
		return out
	case kTable:
		return r.table(b)
	}
	return nil
}

func (r *renderer) list(b *block, width int) []string {
	var out []string
	num := b.start
	for _, item := range b.children {
		marker := "• "
		if b.ordered {
			marker = itoa(num) + ". "
			num++
		}
		w := runewidth.StringWidth(marker)
		inner := r.container(item.children, width-w, b.tight)
		if len(out) > 0 && !b.tight {
			out = append(out, "")
		}
		pad := strings.Repeat(" ", w)
		for i, l := range inner {
			switch {
			case i == 0:
				out = append(out, marker+l)
			case l == "":
				out = append(out, "")
			default:
				out = append(out, pad+l)
			}
		}
		if len(inner) == 0 {
			out = append(out, strings.TrimRight(marker, " "))
		}
	}
	return out
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}

// span is a run of text in one style; text "\n" is a line break. A whole
// span is not broken at its spaces (a code span, with its padding).
type span struct {
	text, sgr string
	whole     bool
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ";" + b
}

// inline returns nodes as spans, sgr applied to all. Every text goes
// through text.Inert here: a character reference may stand for a control.
func (r *renderer) inline(nodes []inl, sgr string) []span {
	var out []span
	for _, n := range nodes {
		switch n.kind {
		case iText:
			out = append(out, r.text(text.Inert(n.text), sgr)...)
		case iBreak:
			out = append(out, span{text: "\n"})
		case iCode:
			s := text.Inert(n.text)
			if r.theme == Plain {
				out = append(out, span{text: s, sgr: sgr})
			} else {
				out = append(out, span{text: " " + s + " ", sgr: join(sgr, r.st.code), whole: true})
			}
		case iEm, iStrong:
			if r.theme == Plain {
				mark := "*"
				if n.kind == iStrong {
					mark = "**"
				}
				out = append(out, span{text: mark, sgr: sgr})
				out = append(out, r.inline(n.kids, sgr)...)
				out = append(out, span{text: mark, sgr: sgr})
				continue
			}
			st := r.st.em
			if n.kind == iStrong {
				st = r.st.strong
			}
			out = append(out, r.inline(n.kids, join(sgr, st))...)
		case iLink, iImage:
			label := r.inline(n.kids, join(sgr, r.st.link))
			out = append(out, label...)
			if dest := text.Inert(n.dest); dest != "" && dest != plain(label) {
				if len(label) > 0 {
					out = append(out, span{text: " ", sgr: sgr})
				}
				out = append(out, span{text: dest, sgr: join(sgr, r.st.url)})
			}
		case iURL:
			out = append(out, span{text: text.Inert(n.text), sgr: join(sgr, r.st.url)})
		}
	}
	return out
}

// text is s as spans, its bare URLs in the URL style, as GitHub links
// them (a report's first line is the PR's URL).
func (r *renderer) text(s, sgr string) []span {
	if r.theme == Plain || !strings.Contains(s, "://") {
		return []span{{text: s, sgr: sgr}}
	}
	var out []span
	for s != "" {
		i := urlStart(s)
		if i < 0 {
			break
		}
		end := len(s) // not s[i:]+" ": a copy of the rest per URL is quadratic
		if j := strings.IndexAny(s[i:], " \n<"); j >= 0 {
			end = i + j
		}
		for end > i && (strings.IndexByte(".,:;!?'\"", s[end-1]) >= 0 ||
			s[end-1] == ')' && strings.Count(s[i:end], "(") < strings.Count(s[i:end], ")")) {
			end--
		}
		if i > 0 {
			out = append(out, span{text: s[:i], sgr: sgr})
		}
		out = append(out, span{text: s[i:end], sgr: join(sgr, r.st.url)})
		s = s[end:]
	}
	if s != "" {
		out = append(out, span{text: s, sgr: sgr})
	}
	return out
}

// urlStart is where the first http:// or https:// URL starting a word of s
// begins, or -1.
func urlStart(s string) int {
	for i := 0; i < len(s); i++ {
		if (i == 0 || strings.IndexByte(" (\n", s[i-1]) >= 0) && (strings.HasPrefix(s[i:], "https://") || strings.HasPrefix(s[i:], "http://")) &&
			len(s[i:]) > len("https://") {
			return i
		}
	}
	return -1
}

func plain(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.text)
	}
	return b.String()
}

// stripTags removes HTML comments and tags from s, leaving the text
// between them: a report's <details><summary>Role reports</summary>
// shows as "Role reports". Only what the CommonMark spec calls a tag (a
// letter, then letters, digits or '-', then a space, '/' or '>') is
// removed: "<U+202E>", which text.Inert writes, stays.
func stripTags(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "<!--") {
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		if s[i] == '<' {
			if n := tagLen(s[i:]); n > 0 {
				i += n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// tagLen is the length of the HTML tag at the start of s, or 0.
func tagLen(s string) int {
	j := 1
	if j < len(s) && s[j] == '/' {
		j++
	}
	if j >= len(s) || !isLetter(s[j]) {
		return 0
	}
	for j < len(s) && (isLetter(s[j]) || s[j] >= '0' && s[j] <= '9' || s[j] == '-') {
		j++
	}
	if j >= len(s) || !(s[j] == '>' || s[j] == '/' || s[j] == ' ' || s[j] == '\t' || s[j] == '\n') {
		return 0
	}
	end := strings.IndexByte(s[j:min(len(s), j+maxLabel)], '>') // bounded: hostile input stays linear
	if end < 0 || strings.IndexByte(s[j:j+end], '<') >= 0 {
		return 0
	}
	return j + end + 1
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// wrap fills lines of at most width columns with the words of spans,
// breaking at spaces and at line breaks. A word wider than width gets a
// line of its own.
func wrap(spans []span, width int, r *renderer) []string {
	type word struct {
		parts []span
		w     int
	}
	var (
		lines []string
		line  []word
		lineW int
		cur   word
	)
	flushLine := func() {
		var parts []span
		for i, w := range line {
			if i > 0 {
				// The space between two words of one style (a heading's,
				// a link's) keeps it.
				sp := ""
				if prev := line[i-1].parts; prev[len(prev)-1].sgr == w.parts[0].sgr {
					sp = w.parts[0].sgr
				}
				parts = append(parts, span{text: " ", sgr: sp})
			}
			parts = append(parts, w.parts...)
		}
		lines = append(lines, render(parts, r))
		line, lineW = nil, 0
	}
	endWord := func() {
		if len(cur.parts) == 0 {
			return
		}
		add := cur.w
		if len(line) > 0 {
			add++
		}
		if len(line) > 0 && lineW+add > width {
			flushLine()
			add = cur.w
		}
		line = append(line, cur)
		lineW += add
		cur = word{}
	}
	for _, s := range spans {
		if s.text == "\n" {
			endWord()
			flushLine()
			continue
		}
		if s.whole {
			cur.parts = append(cur.parts, s)
			cur.w += runewidth.StringWidth(s.text)
			continue
		}
		start := 0
		for i := 0; i <= len(s.text); i++ {
			if i < len(s.text) && s.text[i] != ' ' && s.text[i] != '\t' && s.text[i] != '\n' {
				continue
			}
			if i > start {
				part := s.text[start:i]
				cur.parts = append(cur.parts, span{text: part, sgr: s.sgr})
				cur.w += runewidth.StringWidth(part)
			}
			if i < len(s.text) {
				endWord()
			}
			start = i + 1
		}
	}
	endWord()
	if len(line) > 0 {
		flushLine()
	}
	// A break at the end of a paragraph leaves no empty last line.
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// render writes spans with their styles, merging neighbours of one style.
func render(parts []span, r *renderer) string {
	var b strings.Builder
	for i := 0; i < len(parts); {
		j := i
		var t strings.Builder
		for ; j < len(parts) && parts[j].sgr == parts[i].sgr; j++ {
			t.WriteString(parts[j].text)
		}
		b.WriteString(r.paint(parts[i].sgr, t.String()))
		i = j
	}
	return b.String()
}
