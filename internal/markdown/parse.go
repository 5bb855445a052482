package markdown

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The parser reads the CommonMark and GFM that gh-ocdx and models write:
// ATX and setext headings, paragraphs (their line breaks kept), bullet and
// ordered lists nested by indentation, block quotes, fenced and indented
// code, thematic breaks, HTML blocks, GFM tables; inline, code spans,
// emphasis, links, images, autolinks, escapes, character references and
// raw HTML tags (dropped). Reference-style links and footnotes are shown
// as written. It is a parser of its own, not goldmark's: goldmark's
// packages compile a dozen regular expressions and build a case-folding
// table at initialisation, 0.5 ms of every start of the binary
// (docs/architecture.md, Output). Whatever it misreads, it only shows
// differently: every piece of text is made inert on the way out.

type kind int

const (
	kPara kind = iota
	kHeading
	kRule
	kCode
	kQuote
	kList
	kItem
	kHTML
	kTable
)

type block struct {
	kind     kind
	level    int      // heading
	text     string   // paragraph and heading: inline source; code and HTML: the lines
	children []*block // quote, list (its items), item
	ordered  bool
	start    int
	tight    bool
	rows     [][]string // table: the cells' inline source, the header first
	aligns   []align
}

type align int

const (
	alignNone align = iota
	alignLeft
	alignRight
	alignCenter
)

func parse(src string) []*block {
	lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
	for i, l := range lines {
		lines[i] = expandTabs(l)
	}
	return parseBlocks(lines, 0)
}

// expandTabs turns the tabs of a line's indentation into spaces, to tab
// stops of 4, as CommonMark reads them.
func expandTabs(l string) string {
	if !strings.HasPrefix(strings.TrimLeft(l, " "), "\t") {
		return l
	}
	var b strings.Builder
	col := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			b.WriteByte(' ')
			col++
		case '\t':
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
		default:
			b.WriteString(l[i:])
			return b.String()
		}
	}
	return b.String()
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

func blank(l string) bool { return strings.TrimSpace(l) == "" }

// maxNesting is the deepest quotes and lists go; deeper lines are one
// paragraph of text. Each level copies its lines once more: hostile input
// of thousands of ">" would otherwise cost the square of its size.
const maxNesting = 16

func parseBlocks(lines []string, depth int) []*block {
	if depth > maxNesting {
		return []*block{{kind: kPara, text: strings.Join(lines, "\n")}}
	}
	var out []*block
	for i := 0; i < len(lines); {
		l := lines[i]
		if blank(l) {
			i++
			continue
		}
		ind := indent(l)
		if ind >= 4 {
			var code []string
			for ; i < len(lines) && (blank(lines[i]) || indent(lines[i]) >= 4); i++ {
				code = append(code, strip(lines[i], 4))
			}
			for len(code) > 0 && blank(code[len(code)-1]) {
				code = code[:len(code)-1]
			}
			out = append(out, &block{kind: kCode, text: strings.Join(code, "\n")})
			continue
		}
		s := l[ind:]
		if ch, n, ok := fenceOpen(s); ok {
			var code []string
			for i++; i < len(lines); i++ {
				if t := strings.TrimLeft(lines[i], " "); indent(lines[i]) < 4 && strings.HasPrefix(t, strings.Repeat(string(ch), n)) && strings.Trim(t, string(ch)+" ") == "" {
					i++
					break
				}
				code = append(code, strip(lines[i], ind))
			}
			out = append(out, &block{kind: kCode, text: strings.Join(code, "\n")})
			continue
		}
		if lvl, text, ok := atxHeading(s); ok {
			out = append(out, &block{kind: kHeading, level: lvl, text: text})
			i++
			continue
		}
		if isRule(s) {
			out = append(out, &block{kind: kRule})
			i++
			continue
		}
		if s[0] == '>' {
			var b *block
			b, i = parseQuote(lines, i, depth)
			out = append(out, b)
			continue
		}
		if _, ok := listMarker(s); ok {
			var b *block
			b, i = parseList(lines, i, depth)
			out = append(out, b)
			continue
		}
		if htmlStart(s) {
			var b *block
			b, i = parseHTML(lines, i, strings.HasPrefix(s, "<!--"))
			out = append(out, b)
			continue
		}
		if i+1 < len(lines) && strings.Contains(l, "|") {
			if aligns, ok := delimRow(lines[i+1]); ok && len(splitRow(l)) == len(aligns) {
				t := &block{kind: kTable, aligns: aligns, rows: [][]string{splitRow(l)}}
				for i += 2; i < len(lines) && !blank(lines[i]) && !startsBlock(lines[i]); i++ {
					t.rows = append(t.rows, splitRow(lines[i]))
				}
				out = append(out, t)
				continue
			}
		}
		var b *block
		b, i = parsePara(lines, i)
		out = append(out, b)
	}
	return out
}

// parseQuote reads the block quote that starts at lines[i], and returns
// it with the index of the line after it.
func parseQuote(lines []string, i, depth int) (*block, int) {
	var inner []string
	for ; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " ")
		switch {
		case indent(lines[i]) < 4 && strings.HasPrefix(t, ">"):
			inner = append(inner, strings.TrimPrefix(t[1:], " "))
			continue
		case !blank(lines[i]) && len(inner) > 0 && !blank(inner[len(inner)-1]) && !startsBlock(lines[i]):
			inner = append(inner, t) // a lazy continuation of the quote's paragraph
			continue
		}
		break
	}
	return &block{kind: kQuote, children: parseBlocks(inner, depth+1)}, i
}

// parseHTML reads the HTML block that starts at lines[i]: up to a blank
// line, or for a comment up to its end.
func parseHTML(lines []string, i int, comment bool) (*block, int) {
	var html []string
	for ; i < len(lines); i++ {
		if !comment && blank(lines[i]) {
			break
		}
		html = append(html, lines[i])
		if comment && strings.Contains(lines[i], "-->") {
			i++
			break
		}
	}
	return &block{kind: kHTML, text: strings.Join(html, "\n")}, i
}

// parsePara reads a paragraph, up to a blank line or a line that starts
// another block; an underline of = or - makes it a heading.
func parsePara(lines []string, i int) (*block, int) {
	para := []string{strings.TrimSpace(lines[i])}
	heading := 0
	for i++; i < len(lines) && !blank(lines[i]); i++ {
		if t := strings.TrimSpace(lines[i]); indent(lines[i]) < 4 && t != "" && strings.Trim(t, "=") == "" {
			heading = 1
		} else if indent(lines[i]) < 4 && t != "" && strings.Trim(t, "-") == "" {
			heading = 2
		} else if startsBlock(lines[i]) {
			break
		}
		if heading > 0 {
			i++
			break
		}
		para = append(para, strings.TrimLeft(lines[i], " "))
	}
	text := strings.Join(para, "\n")
	if heading > 0 {
		return &block{kind: kHeading, level: heading, text: text}, i
	}
	return &block{kind: kPara, text: text}, i
}

// strip removes up to n columns of indentation from l.
func strip(l string, n int) string {
	return l[min(n, indent(l)):]
}

func fenceOpen(s string) (byte, int, bool) {
	if len(s) < 3 || s[0] != '`' && s[0] != '~' {
		return 0, 0, false
	}
	n := len(s) - len(strings.TrimLeft(s, s[:1]))
	if n < 3 || s[0] == '`' && strings.Contains(s[n:], "`") {
		return 0, 0, false
	}
	return s[0], n, true
}

func atxHeading(s string) (int, string, bool) {
	n := len(s) - len(strings.TrimLeft(s, "#"))
	if n < 1 || n > 6 || n < len(s) && s[n] != ' ' && s[n] != '\t' {
		return 0, "", false
	}
	t := strings.TrimSpace(s[n:])
	// A closing sequence of #s, after a space, is not part of the heading.
	if c := strings.TrimRight(t, "#"); c == "" || strings.HasSuffix(c, " ") {
		t = strings.TrimSpace(c)
	}
	return n, t, true
}

func isRule(s string) bool {
	c := s[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// startsBlock reports whether l starts a block that interrupts a paragraph.
func startsBlock(l string) bool {
	if indent(l) >= 4 || blank(l) {
		return false
	}
	s := strings.TrimLeft(l, " ")
	if _, _, ok := fenceOpen(s); ok {
		return true
	}
	if _, _, ok := atxHeading(s); ok {
		return true
	}
	if isRule(s) || s[0] == '>' || htmlStart(s) {
		return true
	}
	m, ok := listMarker(s)
	return ok && !blank(s[min(m.width, len(s)):]) && (!m.ordered || m.num == 1)
}

// htmlStart reports whether s opens an HTML block: a comment, or a block
// tag as CommonMark lists them (those gh-ocdx and models write).
func htmlStart(s string) bool {
	if strings.HasPrefix(s, "<!--") {
		return true
	}
	if len(s) < 2 || s[0] != '<' {
		return false
	}
	t := strings.TrimPrefix(s[1:], "/")
	n := 0
	for n < len(t) && (isLetter(t[n]) || t[n] >= '0' && t[n] <= '9') {
		n++
	}
	if n == 0 || n < len(t) && t[n] != ' ' && t[n] != '>' && t[n] != '/' {
		return false
	}
	switch strings.ToLower(t[:n]) {
	case "details", "summary", "div", "p", "table", "thead", "tbody", "tr", "td", "th", "ul", "ol", "li",
		"pre", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "dl", "dt", "dd", "section", "br":
		return true
	}
	return false
}

type marker struct {
	ordered bool
	num     int
	char    byte // '-', '+', '*', or the ordered delimiter '.' or ')'
	width   int  // the marker and the spaces after it: where the item's text starts
}

func listMarker(s string) (marker, bool) {
	var m marker
	switch {
	case s[0] == '-' || s[0] == '+' || s[0] == '*':
		m.char, m.width = s[0], 1
	default:
		n := 0
		for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(s) || s[n] != '.' && s[n] != ')' {
			return m, false
		}
		m.ordered, m.char, m.width = true, s[n], n+1
		m.num, _ = strconv.Atoi(s[:n])
	}
	rest := s[m.width:]
	if rest != "" && rest[0] != ' ' {
		return m, false
	}
	sp := indent(rest)
	switch {
	case blank(rest):
		m.width++
	case sp > 4:
		m.width++ // the text is indented code: one space belongs to the marker
	default:
		m.width += sp
	}
	return m, true
}

// parseList reads the list starting at lines[i] and returns it with the
// index of the first line after it.
func parseList(lines []string, i, depth int) (*block, int) {
	first, _ := listMarker(lines[i][indent(lines[i]):])
	list := &block{kind: kList, ordered: first.ordered, start: first.num, tight: true}
	for i < len(lines) {
		ind := indent(lines[i])
		m, ok := listMarker(lines[i][ind:])
		if !ok || m.ordered != first.ordered || m.char != first.char || ind >= 4 {
			break
		}
		col := ind + m.width
		item := []string{strings.TrimLeft(lines[i][min(col, len(lines[i])):], " ")}
		if m.width > len(lines[i][ind:]) {
			item[0] = ""
		}
		for i++; i < len(lines); i++ {
			l := lines[i]
			switch {
			case blank(l):
				item = append(item, "")
				continue
			case indent(l) >= col:
				item = append(item, l[col:])
				continue
			case !blank(item[len(item)-1]) && !startsBlock(l):
				if _, isItem := listMarker(strings.TrimLeft(l, " ")); !isItem {
					item = append(item, strings.TrimLeft(l, " ")) // a lazy continuation
					continue
				}
			}
			break
		}
		trailing := 0
		for len(item) > 1 && blank(item[len(item)-1]) {
			item = item[:len(item)-1]
			trailing++
		}
		for _, l := range item {
			if blank(l) {
				list.tight = false
			}
		}
		list.children = append(list.children, &block{kind: kItem, children: parseBlocks(item, depth+1)})
		if trailing > 0 && i < len(lines) {
			if next, ok := listMarker(strings.TrimLeft(lines[i], " ")); ok && indent(lines[i]) < 4 && next.char == first.char && next.ordered == first.ordered {
				list.tight = false
			}
		}
	}
	return list, i
}

// delimRow reads a table's delimiter row: |---|:--:|--:|.
func delimRow(l string) ([]align, bool) {
	if !strings.Contains(l, "-") || indent(l) >= 4 {
		return nil, false
	}
	var aligns []align
	for _, c := range splitRow(l) {
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		core := strings.TrimSuffix(strings.TrimPrefix(c, ":"), ":")
		if core == "" || strings.Trim(core, "-") != "" {
			return nil, false
		}
		switch {
		case left && right:
			aligns = append(aligns, alignCenter)
		case left:
			aligns = append(aligns, alignLeft)
		case right:
			aligns = append(aligns, alignRight)
		default:
			aligns = append(aligns, alignNone)
		}
	}
	return aligns, len(aligns) > 0
}

// splitRow returns the cells of a table row, trimmed, split at each pipe
// not escaped with a backslash; an outer pipe at either end is dropped.
// An escaped pipe is a pipe, in code spans too, as GFM reads it.
func splitRow(l string) []string {
	s := strings.TrimSpace(l)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var cells []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			b.WriteByte('|')
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// Inline content.

type ikind int

const (
	iText ikind = iota
	iCode
	iEm
	iStrong
	iLink
	iImage
	iURL
	iBreak
)

type inl struct {
	kind ikind
	text string // text, code, URL
	kids []inl  // emphasis, link, image
	dest string // link, image
}

// maxDelims bounds emphasis matching; maxLabel the text a link's label
// is looked for in: both make hostile input cost linear time.
const maxDelims, maxLabel = 1000, 1000

// tok is a parsed node or a run of * or _ that may open or close emphasis.
type tok struct {
	node              inl
	delim             byte
	n                 int
	canOpen, canClose bool
}

// delimiter is the run of * or _ at s[i], with whether it may open or
// close emphasis (CommonMark's flanking rules).
func delimiter(s string, i int) *tok {
	c := s[i]
	n := run(s[i:], c)
	before, after := ' ', ' '
	if i > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	if i+n < len(s) {
		after, _ = utf8.DecodeRuneInString(s[i+n:])
	}
	left := !unicode.IsSpace(after) && (!isPunct(after) || unicode.IsSpace(before) || isPunct(before))
	right := !unicode.IsSpace(before) && (!isPunct(before) || unicode.IsSpace(after) || isPunct(after))
	t := &tok{delim: c, n: n, canOpen: left, canClose: right}
	if c == '_' {
		t.canOpen = left && (!right || isPunct(before))
		t.canClose = right && (!left || isPunct(after))
	}
	return t
}

func parseInline(s string) []inl {
	toks, closer := []*tok(nil), -1 // closer: linkAt's
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			toks = append(toks, &tok{node: inl{kind: iText, text: text.String()}})
			text.Reset()
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			flush()
			toks = append(toks, &tok{node: inl{kind: iBreak}})
			i += 2
			continue
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			text.WriteByte(s[i+1])
			i += 2
			continue
		case c == '`':
			n := run(s[i:], '`')
			if end := closingTicks(s, i+n, n); end >= 0 {
				flush()
				code := strings.ReplaceAll(s[i+n:end], "\n", " ")
				if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
					code = code[1 : len(code)-1]
				}
				toks = append(toks, &tok{node: inl{kind: iCode, text: code}})
				i = end + n
			} else {
				text.WriteString(s[i : i+n])
				i += n
			}
			continue
		case c == '<':
			if n := autolink(s[i:]); n > 0 {
				flush()
				toks = append(toks, &tok{node: inl{kind: iURL, text: s[i+1 : i+n-1]}})
				i += n
				continue
			}
			if strings.HasPrefix(s[i:], "<!--") {
				if end := strings.Index(s[i+4:], "-->"); end >= 0 {
					i += 4 + end + 3
					continue
				}
			}
			if n := tagLen(s[i:]); n > 0 {
				i += n // raw HTML: the tag is dropped, the text around it stays
				continue
			}
		case c == '[' || c == '!' && i+1 < len(s) && s[i+1] == '[':
			open := i
			if c == '!' {
				open++
			}
			if label, dest, n := linkAt(s, open, &closer); n > 0 {
				flush()
				k := iLink
				if c == '!' {
					k = iImage
				}
				toks = append(toks, &tok{node: inl{kind: k, kids: parseInline(label), dest: dest}})
				i = open + n
				continue
			}
		case c == '&':
			if r, n := entity(s[i:]); n > 0 {
				text.WriteString(r)
				i += n
				continue
			}
		case c == '*' || c == '_':
			flush()
			t := delimiter(s, i)
			toks = append(toks, t)
			i += t.n
			continue
		case c == '\n':
			// Spaces before a line break are dropped; two or more make it
			// a hard break, which renders the same.
			t := strings.TrimRight(text.String(), " ")
			text.Reset()
			text.WriteString(t)
			flush()
			toks = append(toks, &tok{node: inl{kind: iBreak}})
			i++
			for i < len(s) && s[i] == ' ' {
				i++
			}
			continue
		}
		text.WriteByte(c)
		i++
	}
	flush()
	return emphasis(toks)
}

// emphasis matches the delimiter runs of toks, each closer with the
// nearest opener of its character before it, as CommonMark does (without
// its rule of three), and returns the nodes; an unmatched run is text.
//
// Matching is quadratic in the number of runs: past maxDelims in one
// paragraph, the runs are left as text, as a bound on hostile input.
func emphasis(toks []*tok) []inl {
	delims := 0
	for _, t := range toks {
		if t.delim != 0 {
			delims++
		}
	}
	if delims > maxDelims {
		return nodes(toks)
	}
	for c := 0; c < len(toks); c++ {
		closer := toks[c]
		if closer.delim == 0 || !closer.canClose || closer.n == 0 {
			continue
		}
		o := c - 1
		for ; o >= 0; o-- {
			if t := toks[o]; t.delim == closer.delim && t.canOpen && t.n > 0 {
				break
			}
		}
		if o < 0 {
			continue
		}
		opener := toks[o]
		use, k := 1, iEm
		if opener.n >= 2 && closer.n >= 2 {
			use, k = 2, iStrong
		}
		node := &tok{node: inl{kind: k, kids: nodes(toks[o+1 : c])}}
		opener.n -= use
		closer.n -= use
		rest := append([]*tok{node}, toks[c:]...)
		toks = append(toks[:o+1], rest...)
		c = o + 1
		if opener.n == 0 {
			toks = append(toks[:o], toks[o+1:]...)
			c--
		}
		if closer.n > 0 {
			c-- // the closer may close another opener
		} else {
			toks = append(toks[:c+1], toks[c+2:]...)
		}
	}
	return nodes(toks)
}

// nodes returns toks as nodes, an unmatched run as text, neighbouring
// texts merged (a bare URL with an underscore in it is one text).
func nodes(toks []*tok) []inl {
	var out []inl
	var text strings.Builder
	for _, t := range toks {
		switch {
		case t.delim != 0:
			text.WriteString(strings.Repeat(string(t.delim), t.n))
		case t.node.kind == iText:
			text.WriteString(t.node.text)
		default:
			if text.Len() > 0 {
				out = append(out, inl{kind: iText, text: text.String()})
				text.Reset()
			}
			out = append(out, t.node)
		}
	}
	if text.Len() > 0 {
		out = append(out, inl{kind: iText, text: text.String()})
	}
	return out
}

func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// closingTicks is where the run of exactly n backticks closing a code
// span opened before from starts, or -1.
func closingTicks(s string, from, n int) int {
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := run(s[i:], '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// autolink is the length of the <scheme:...> autolink at the start of s, or 0.
func autolink(s string) int {
	i := 1
	for i < len(s) && i < 33 && (isLetter(s[i]) || i > 1 && (s[i] >= '0' && s[i] <= '9' || s[i] == '+' || s[i] == '.' || s[i] == '-')) {
		i++
	}
	if i < 3 || i >= len(s) || s[i] != ':' {
		return 0
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '>':
			return i + 1
		case c == '<' || c <= ' ':
			return 0
		}
	}
	return 0
}

// linkAt is link(s[open:]) in parseInline's loop. *closer is the first
// ']' at or after the last '[' looked at (len(s): none; -1 before the
// first): a link needs one within maxLabel, so a run of '[' without one is
// passed over in one look, not maxLabel bytes per '['.
func linkAt(s string, open int, closer *int) (string, string, int) {
	if *closer < open {
		if *closer = strings.IndexByte(s[open:], ']'); *closer < 0 {
			*closer = len(s)
		} else {
			*closer += open
		}
	}
	if *closer == len(s) || *closer-open >= maxLabel {
		return "", "", 0
	}
	return link(s[open:])
}

// link reads an inline link, [label](dest "title"), at the start of s and
// returns its label, destination and length, or a length of 0.
func link(s string) (string, string, int) {
	depth, i := 0, 0
	for lim := min(len(s), maxLabel); i < lim; i++ {
		switch s[i] {
		case '\\':
			i++
			continue
		case '`':
			n := run(s[i:], '`')
			if end := closingTicks(s[:lim], i+n, n); end >= 0 {
				i = end + n - 1
			} else {
				i += n - 1
			}
			continue
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if depth != 0 || i+1 >= len(s) || s[i+1] != '(' {
		return "", "", 0
	}
	label := s[1:i]
	s = s[:min(len(s), i+2+4*maxLabel)] // the destination and title, bounded too
	j := i + 2
	for j < len(s) && (s[j] == ' ' || s[j] == '\n') {
		j++
	}
	var dest string
	if j < len(s) && s[j] == '<' {
		end := strings.IndexAny(s[j+1:], ">\n")
		if end < 0 || s[j+1+end] != '>' {
			return "", "", 0
		}
		dest = s[j+1 : j+1+end]
		j += end + 2
	} else {
		parens, k := 0, j
		for ; k < len(s) && s[k] > ' '; k++ {
			if s[k] == '\\' && k+1 < len(s) {
				k++
				continue
			}
			if s[k] == '(' {
				parens++
			} else if s[k] == ')' {
				if parens == 0 {
					break
				}
				parens--
			}
		}
		dest = s[j:k]
		j = k
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\n') {
		j++
	}
	if j < len(s) && (s[j] == '"' || s[j] == '\'' || s[j] == '(') {
		closeCh := s[j]
		if closeCh == '(' {
			closeCh = ')'
		}
		end := strings.IndexByte(s[j+1:], closeCh)
		if end < 0 {
			return "", "", 0
		}
		j += end + 2
		for j < len(s) && (s[j] == ' ' || s[j] == '\n') {
			j++
		}
	}
	if j >= len(s) || s[j] != ')' {
		return "", "", 0
	}
	return label, unescape(dest), j + 1
}

// unescape resolves a destination's backslash escapes and references.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			b.WriteByte(s[i+1])
			i += 2
			continue
		case s[i] == '&':
			if r, n := entity(s[i:]); n > 0 {
				b.WriteString(r)
				i += n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// entities are the named references resolved: those html.EscapeString
// writes and the typographic ones models use; any other name is shown as
// written.
var entities = map[string]string{
	"amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u00a0",
	"ndash": "–", "mdash": "—", "hellip": "…", "middot": "·", "bull": "•", "times": "×",
	"larr": "←", "rarr": "→", "uarr": "↑", "darr": "↓", "copy": "©", "reg": "®", "trade": "™",
	"lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "le": "≤", "ge": "≥", "ne": "≠",
}

// entity reads the character reference at the start of s (&amp;, &#27;,
// &#x1b;) and returns what it stands for and its length, or a length of 0.
// The result may be a control character: the renderer makes it inert.
func entity(s string) (string, int) {
	end := strings.IndexByte(s, ';')
	if end < 2 || end > 33 {
		return "", 0
	}
	name := s[1:end]
	if name[0] != '#' {
		r, ok := entities[name]
		if !ok {
			return "", 0
		}
		return r, end + 1
	}
	base, digits := 10, name[1:]
	if digits != "" && (digits[0] == 'x' || digits[0] == 'X') {
		base, digits = 16, digits[1:]
	}
	if digits == "" || len(digits) > 7 {
		return "", 0
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return "", 0
	}
	r := rune(n)
	if n == 0 || n > unicode.MaxRune || !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	return string(r), end + 1
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}
