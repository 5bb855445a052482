package text

import (
	"fmt"
	"strings"
)

// Plural is n and the noun, in the plural unless n is 1: "1 finding",
// "2 findings", "0 findings". many is the plural when it is not the noun
// with an "s" ("reply", "replies").
func Plural(n int, noun string, many ...string) string {
	if n == 1 {
		return "1 " + noun
	}
	if len(many) > 0 {
		return fmt.Sprintf("%d %s", n, many[0])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Closest is the name among names nearest to typed, for a "did you mean"
// (ignoring case): within a third of its length in edits (at least two),
// the first of the nearest; "" when none is that near, or typed is one.
func Closest(typed string, names []string) string {
	typed = strings.ToLower(typed)
	best, dist := "", max(2, len(typed)/3)+1
	for _, n := range names {
		d := Distance(typed, strings.ToLower(n))
		if d == 0 {
			return ""
		}
		if d < dist {
			best, dist = n, d
		}
	}
	return best
}

// Wrap fills the words of s into lines of at most width characters (a
// longer word stands alone), the first line after first, the next ones
// after indent.
func Wrap(s string, width int, first, indent string) string {
	return fill(strings.Fields(s), width, first, indent)
}

// WrapUsage is Wrap for a usage line: it breaks only at spaces outside
// brackets, so that "[<number> | <url>]" stays whole.
func WrapUsage(s string, width int, first, indent string) string {
	return fill(words(s), width, first, indent)
}

func fill(ws []string, width int, first, indent string) string {
	var b strings.Builder
	line, lineLen := first, len([]rune(first))
	empty := true
	for _, w := range ws {
		n := len([]rune(w))
		if !empty && lineLen+1+n > width {
			b.WriteString(line + "\n")
			line, lineLen, empty = indent, len([]rune(indent)), true
		}
		if !empty {
			line += " "
			lineLen++
		}
		line += w
		lineLen += n
		empty = false
	}
	b.WriteString(line)
	return b.String()
}

// words splits s at white space outside () [] <> {}.
func words(s string) []string {
	var out []string
	depth, start := 0, -1
	for i, r := range s {
		switch r {
		case '[', '(', '{', '<':
			depth++
		case ']', ')', '}', '>':
			depth = max(depth-1, 0)
		}
		space := r == ' ' || r == '\n' || r == '\t'
		switch {
		case space && depth == 0 && start >= 0:
			out = append(out, s[start:i])
			start = -1
		case !space && start < 0:
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}
