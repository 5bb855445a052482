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
