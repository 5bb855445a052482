package markdown

import (
	"bytes"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	gtext "github.com/yuin/goldmark/text"
)

// GFM tables, parsed here rather than with goldmark's extension package,
// whose initialisation compiles the URL expressions of its linkifier at
// every start of the binary.

type align int

const (
	alignNone align = iota
	alignLeft
	alignRight
	alignCenter
)

var (
	kindTable = ast.NewNodeKind("MarkdownTable")
	kindRow   = ast.NewNodeKind("MarkdownTableRow")
	kindCell  = ast.NewNodeKind("MarkdownTableCell")
)

type tableNode struct {
	ast.BaseBlock
	aligns []align
}

func (n *tableNode) Kind() ast.NodeKind            { return kindTable }
func (n *tableNode) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }
func (n *rowNode) Kind() ast.NodeKind              { return kindRow }
func (n *rowNode) Dump(source []byte, level int)   { ast.DumpHelper(n, source, level, nil, nil) }
func (n *cellNode) Kind() ast.NodeKind             { return kindCell }
func (n *cellNode) Dump(source []byte, level int)  { ast.DumpHelper(n, source, level, nil, nil) }

// inTable reports whether n is inside a table cell, where GFM reads "\|"
// in a code span as a pipe.
func inTable(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if _, ok := p.(*cellNode); ok {
			return true
		}
	}
	return false
}

type rowNode struct {
	ast.BaseBlock
	header bool
}

// cellNode holds one cell's text as a line, which goldmark's inline
// parser then parses like a paragraph's.
type cellNode struct {
	ast.BaseBlock
}

// tableTransformer turns a paragraph whose second line is a delimiter row
// (|---|:--:|) into a table, as GFM does.
type tableTransformer struct{}

func (tableTransformer) Transform(p *ast.Paragraph, reader gtext.Reader, _ parser.Context) {
	lines := p.Lines()
	if lines.Len() < 2 {
		return
	}
	src := reader.Source()
	header := splitRow(src, lines.At(0))
	delim := splitRow(src, lines.At(1))
	if len(header) == 0 || len(header) != len(delim) {
		return
	}
	h, d := lines.At(0), lines.At(1)
	if !bytes.Contains(src[h.Start:h.Stop], []byte("|")) && !bytes.Contains(src[d.Start:d.Stop], []byte("|")) {
		return
	}
	aligns := make([]align, len(delim))
	for i, d := range delim {
		a, ok := delimAlign(string(src[d.Start:d.Stop]))
		if !ok {
			return
		}
		aligns[i] = a
	}
	t := &tableNode{aligns: aligns}
	t.AppendChild(t, newRow(header, len(aligns), true))
	for i := 2; i < lines.Len(); i++ {
		t.AppendChild(t, newRow(splitRow(src, lines.At(i)), len(aligns), false))
	}
	p.Parent().ReplaceChild(p.Parent(), p, t)
}

func newRow(cells []gtext.Segment, n int, header bool) *rowNode {
	row := &rowNode{header: header}
	for i := range n {
		c := &cellNode{}
		if i < len(cells) {
			c.Lines().Append(cells[i])
		}
		row.AppendChild(row, c)
	}
	return row
}

// delimAlign reads a delimiter cell: ---, :--, --:, :-:.
func delimAlign(s string) (align, bool) {
	left, right := strings.HasPrefix(s, ":"), strings.HasSuffix(s, ":")
	core := strings.TrimSuffix(strings.TrimPrefix(s, ":"), ":")
	if core == "" || strings.Trim(core, "-") != "" {
		return 0, false
	}
	switch {
	case left && right:
		return alignCenter, true
	case left:
		return alignLeft, true
	case right:
		return alignRight, true
	}
	return alignNone, true
}

// splitRow returns the cells of a table row, trimmed, split at each pipe
// not escaped with a backslash; an outer pipe at either end is dropped.
func splitRow(src []byte, line gtext.Segment) []gtext.Segment {
	start, stop := line.Start, line.Stop
	for stop > start && isSpace(src[stop-1]) {
		stop--
	}
	for start < stop && isSpace(src[start]) {
		start++
	}
	if start < stop && src[start] == '|' {
		start++
	}
	if stop > start && src[stop-1] == '|' && (stop-2 < start || src[stop-2] != '\\') {
		stop--
	}
	if start >= stop {
		return nil
	}
	var cells []gtext.Segment
	from := start
	for i := start; i <= stop; i++ {
		if i < stop && (src[i] != '|' || i > start && src[i-1] == '\\') {
			continue
		}
		a, b := from, i
		for a < b && isSpace(src[a]) {
			a++
		}
		for b > a && isSpace(src[b-1]) {
			b--
		}
		cells = append(cells, gtext.NewSegment(a, b))
		from = i + 1
	}
	return cells
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// table renders t with aligned columns; it is not wrapped, as gh does not
// wrap tables.
func (r *renderer) table(t *tableNode) []string {
	var rows [][]string
	var widths []int
	var cellW [][]int
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		var ws []int
		i := 0
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			sgr := ""
			if row.(*rowNode).header {
				sgr = r.st.tableHead
			}
			spans := r.inline(c, sgr)
			w := 0
			for _, s := range spans {
				w += runewidth.StringWidth(s.text)
			}
			cells = append(cells, render(spans, r))
			ws = append(ws, w)
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], w)
			i++
		}
		rows = append(rows, cells)
		cellW = append(cellW, ws)
	}
	bar, rule, cross := "│", "─", "┼"
	if r.theme == Plain {
		bar, rule, cross = "|", "-", "|"
	}
	var out []string
	for ri, cells := range rows {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteString(r.paint(r.st.border, bar))
			}
			gap := widths[i] - cellW[ri][i]
			left := 0
			switch t.aligns[i] {
			case alignRight:
				left = gap
			case alignCenter:
				left = gap / 2
			}
			b.WriteString(" " + strings.Repeat(" ", left) + c + strings.Repeat(" ", gap-left) + " ")
		}
		out = append(out, strings.TrimRight(b.String(), " "))
		if ri == 0 {
			var sep []string
			for _, w := range widths {
				sep = append(sep, strings.Repeat(rule, w+2))
			}
			out = append(out, r.paint(r.st.border, strings.Join(sep, cross)))
		}
	}
	return out
}
