package cmd

import (
	"fmt"
	"strings"
)

// pushPreview is what the person reads before a push question: the
// commits, then git's diffstat under them, both indented alike. git
// indents each stat line by one space and the runner trims the first: each
// line loses its own, so that the columns (" | 3 ++-") line up again.
func pushPreview(title string, commits []string, stat string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s:\n", title)
	for _, c := range commits {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	if stat = strings.Trim(stat, "\n"); stat != "" {
		b.WriteString("\n")
		for _, l := range strings.Split(stat, "\n") {
			fmt.Fprintf(&b, "  %s\n", strings.TrimPrefix(l, " "))
		}
	}
	b.WriteString("\n")
	return b.String()
}
