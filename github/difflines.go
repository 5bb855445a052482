package github

import (
	"strconv"
	"strings"
)

// DiffLines says which lines of which file a PR's diff shows, on which
// side: GitHub accepts a review comment only on such a line
// (docs/architecture.md, Posting). It is built from the unified diff the
// reviewers were given.
type DiffLines map[string]*fileLines

// fileLines maps a line number to the hunk it is in, per side.
type fileLines struct{ right, left map[int]int }

// Sides of a review comment: RIGHT is the PR's version (added and context
// lines), LEFT the base's (removed lines).
const (
	Right = "RIGHT"
	Left  = "LEFT"
)

// ParseDiffLines reads a unified diff (git's, or rebuilt from the files
// endpoint). A file cut from a diff that was read only in part has only
// the lines that arrived.
func ParseDiffLines(diff string) DiffLines {
	d := DiffLines{}
	var cur *fileLines
	oldPath, hunk, oldLine, newLine := "", 0, 0, 0
	inHunk := false
	file := func(p string) *fileLines {
		if d[p] == nil {
			d[p] = &fileLines{right: map[int]int{}, left: map[int]int{}}
		}
		return d[p]
	}
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			cur, oldPath, inHunk = nil, "", false
			continue
		case !inHunk && strings.HasPrefix(l, "--- "):
			oldPath = DiffPath(strings.TrimPrefix(l, "--- "))
			continue
		case !inHunk && strings.HasPrefix(l, "+++ "):
			p := DiffPath(strings.TrimPrefix(l, "+++ "))
			if p == "" {
				p = oldPath // a deleted file: its lines are on the left
			}
			if p != "" {
				cur = file(p)
			}
			continue
		case strings.HasPrefix(l, "@@"):
			oldLine, newLine = HunkStart(l, "-"), HunkStart(l, "+")
			hunk++
			inHunk = cur != nil
			continue
		case !inHunk:
			continue
		}
		switch {
		case strings.HasPrefix(l, "+"):
			cur.right[newLine] = hunk
			newLine++
		case strings.HasPrefix(l, "-"):
			cur.left[oldLine] = hunk
			oldLine++
		case strings.HasPrefix(l, " "):
			cur.right[newLine] = hunk
			newLine++
			oldLine++
		}
	}
	return d
}

// Anchor finds the side on which lines start..end (start 0: end alone) of
// path are all in one hunk of the diff: RIGHT when they are added or
// context lines, else LEFT when they are removed lines. ok is false when
// GitHub would refuse a comment there.
func (d DiffLines) Anchor(path string, start, end int) (side string, ok bool) {
	f := d[path]
	if f == nil || end <= 0 {
		return "", false
	}
	if start <= 0 || start > end {
		start = end
	}
	for _, s := range []struct {
		name  string
		lines map[int]int
	}{{Right, f.right}, {Left, f.left}} {
		h, in := s.lines[end]
		if !in {
			continue
		}
		all := true
		for n := start; n < end && all; n++ {
			hn, in := s.lines[n]
			all = in && hn == h
		}
		if all {
			return s.name, true
		}
	}
	return "", false
}

// DiffPath is the path of a "--- a/path" or "+++ b/path" header; /dev/null
// (the side of an added or deleted file that has none) is "".
func DiffPath(s string) string {
	s = strings.TrimSpace(strings.SplitN(s, "\t", 2)[0])
	if s == "/dev/null" {
		return ""
	}
	if p, err := strconv.Unquote(s); err == nil {
		s = p // git quotes unusual names
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return s
}

// HunkStart is the first line of a "@@ -a,b +c,d @@" header on side sign
// ("-" the base, "+" the PR's version); 0 when the header is malformed.
func HunkStart(h, sign string) int {
	_, rest, ok := strings.Cut(h, " "+sign)
	if !ok {
		return 0
	}
	end := strings.IndexAny(rest, ", ")
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0
	}
	return n
}
