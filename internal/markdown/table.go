package markdown

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// table renders t with aligned columns; it is not wrapped, as gh does not
// wrap tables.
func (r *renderer) table(t *block) []string {
	var rows [][]string
	var widths []int
	var cellW [][]int
	for ri, row := range t.rows {
		var cells []string
		var ws []int
		for i := range t.aligns {
			sgr := ""
			if ri == 0 {
				sgr = r.st.tableHead
			}
			var spans []span
			if i < len(row) {
				spans = r.inline(parseInline(row[i]), sgr)
			}
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
