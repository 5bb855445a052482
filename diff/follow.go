package diff

// Follow is where line (1-based) of path in a diff's old version is in
// its new version: a finding followed across heads by its line, never by
// recomputing an ID that holds a number that moved (docs/architecture.md,
// Re-reviews). changed says the line itself was removed or rewritten (its
// new place is then the first line after the change), or its file deleted
// (then to is ""); a path the diff does not name is unchanged.
func Follow(files []*File, path string, line int) (to string, at int, changed bool) {
	for _, f := range files {
		if f.IsCopy || f.OldPath != path && !(f.OldPath == "" && f.NewPath == path) {
			continue // a copy leaves the finding where it was
		}
		if f.IsDeleted {
			return "", 0, true
		}
		if f.IsBinary {
			return f.NewPath, line, true
		}
		shift := 0
		for _, h := range f.Hunks {
			if line < h.OldStart || h.OldLines == 0 && line == h.OldStart {
				break // before this hunk (a pure insertion sits after OldStart)
			}
			next := end(h.NewStart, h.NewLines) // the line after the hunk
			if line >= end(h.OldStart, h.OldLines) {
				shift = next - end(h.OldStart, h.OldLines)
				continue
			}
			for i, l := range h.Lines {
				if l.Old != line {
					continue
				}
				if l.Kind == Context {
					return f.NewPath, l.New, false
				}
				for _, m := range h.Lines[i:] {
					if m.Kind != Del {
						next = m.New
						break
					}
				}
				return f.NewPath, next, true
			}
			return f.NewPath, line + shift, false // a hunk read only in part
		}
		return f.NewPath, line + shift, false
	}
	return path, line, false
}

// end is the first line after a hunk's range: a range of no lines (a pure
// insertion or deletion) starts after its line, not at it.
func end(start, lines int) int {
	if lines == 0 {
		return start + 1
	}
	return start + lines
}
