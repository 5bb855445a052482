package diff

import "strings"

// Sides of a review comment: RIGHT is the PR's version (added and context
// lines), LEFT the base's (removed and context lines, by the base's
// numbers).
const (
	Right = "RIGHT"
	Left  = "LEFT"
)

// Lines says which lines of which file a diff shows, on which side:
// GitHub accepts a review comment only on such a line
// (docs/architecture.md, Posting).
type Lines map[string]*fileLines

// fileLines maps a line number to the hunk it is in, per side.
type fileLines struct{ right, left map[int]int }

// Index is the lines files show. A file cut from a diff that was read only
// in part has the lines that arrived.
func Index(files []*File) Lines {
	d := Lines{}
	hunk := 0
	for _, f := range files {
		fl := d[f.Path()]
		if fl == nil {
			fl = &fileLines{right: map[int]int{}, left: map[int]int{}}
			d[f.Path()] = fl
		}
		for _, h := range f.Hunks {
			hunk++
			for _, l := range h.Lines {
				if l.Kind != Del {
					fl.right[l.New] = hunk
				}
				if l.Kind != Add {
					fl.left[l.Old] = hunk
				}
			}
		}
	}
	return d
}

// IndexOf is the lines a unified diff shows.
func IndexOf(b []byte) Lines {
	files, _ := Parse(b) // Parse fails only on a reader's error, and bytes have none
	return Index(files)
}

// Anchor says whether lines start..end (start 0: end alone) of path are
// all in one hunk of the diff on side: RIGHT ("" too) numbers them in the
// PR's version, LEFT in the base. A number is never moved to the other
// side: a finding on a line of the PR's version that the diff does not
// show is not on the diff, even when a removed line has that number.
func (d Lines) Anchor(path string, start, end int, side string) (string, bool) {
	f := d[path]
	if f == nil || end <= 0 {
		return "", false
	}
	if start <= 0 || start > end {
		start = end
	}
	lines := f.right
	switch strings.ToUpper(strings.TrimSpace(side)) {
	case "", Right:
		side = Right
	case Left:
		side, lines = Left, f.left
	default:
		return "", false
	}
	h, in := lines[end]
	if !in {
		return "", false
	}
	for n := start; n < end; n++ {
		if hn, in := lines[n]; !in || hn != h {
			return "", false
		}
	}
	return side, true
}
