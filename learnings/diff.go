package learnings

import (
	"fmt"
	"strings"
)

// Diff is the unified diff of path from old to new ("" old: a new file),
// as git diff writes it: one hunk around the lines that differ, three
// lines of context. "" when they are the same.
func Diff(path, old, new string) string {
	if old == new {
		return ""
	}
	a, b := lines(old), lines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	const context = 3
	from, aTo, bTo := max(pre-context, 0), min(len(a)-suf+context, len(a)), min(len(b)-suf+context, len(b))
	var w strings.Builder
	fmt.Fprintf(&w, "diff --git a/%s b/%s\n", path, path)
	if old == "" {
		fmt.Fprintf(&w, "new file mode 100644\n--- /dev/null\n")
	} else {
		fmt.Fprintf(&w, "--- a/%s\n", path)
	}
	fmt.Fprintf(&w, "+++ b/%s\n@@ -%s +%s @@\n", path, hunkRange(from, aTo-from), hunkRange(from, bTo-from))
	for _, l := range a[from:pre] {
		w.WriteString(" " + l)
	}
	for _, l := range a[pre : len(a)-suf] {
		w.WriteString("-" + l)
	}
	for _, l := range b[pre : len(b)-suf] {
		w.WriteString("+" + l)
	}
	for _, l := range a[len(a)-suf : aTo] {
		w.WriteString(" " + l)
	}
	return w.String()
}

// lines splits s into lines with their newline; a last line without one
// is marked as git marks it.
func lines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s+"\n\\ No newline at end of file\n")
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// hunkRange is a hunk header's start,count for count lines after the
// first lines (git's rule: an empty range starts at the line before).
func hunkRange(first, count int) string {
	start := first + 1
	if count == 0 {
		start = first
	}
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}
