// Package diff is the one reader of unified diffs in gh-ocdx
// (docs/architecture.md, The diff reader): git's own, GitHub's, and the
// one rebuilt from the files endpoint, whole or cut short. It imports no
// package of ours.
package diff

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
)

// Kind is what a line of a hunk is.
type Kind byte

// The kinds of hunk lines, as their first character.
const (
	Context Kind = ' '
	Add     Kind = '+'
	Del     Kind = '-'
)

// Line is one line of a hunk. Old is its number in the base (0 for an
// added line), New in the PR's version (0 for a removed line). Text is the
// line without its kind and without the line break; a CRLF file's "\r"
// stays in it.
type Line struct {
	Kind      Kind
	Old, New  int
	Text      string
	NoNewline bool // followed by "\ No newline at end of file"
}

// Hunk is one "@@ -a,b +c,d @@" section.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Section            string // the text after the second "@@"
	Lines              []Line // filled by Parse; Walk passes lines one by one
}

// File is one file of a diff. A path is "" on the side where the file does
// not exist (/dev/null). Start and End are the byte offsets of its section
// in the input (End is set by Parse).
type File struct {
	OldPath, NewPath string
	OldMode, NewMode string // from "old/new mode", "new/deleted file mode" or the index line
	IsNew, IsDeleted bool
	IsRename, IsCopy bool
	IsBinary         bool
	IsSubmodule      bool // a gitlink (mode 160000): its lines are "Subproject commit …"
	// Truncated: the input ended inside this file's hunks (a diff read
	// only in part); it has the lines that arrived.
	Truncated  bool
	Header     []string // the lines from "diff --git" up to the first hunk
	Hunks      []Hunk
	Start, End int64
	// PatchStart is the offset of the first hunk header: the file's patch
	// as the files endpoint gives it is the input from there to End (Parse
	// sets it to End for a file without hunks).
	PatchStart int64
}

// Path is the file's path in the PR's version, or in the base for a file
// the diff deletes.
func (f *File) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// Visitor receives a diff as Walk reads it. File is called once a file's
// header is complete (before its first hunk), Hunk at each hunk header
// (Lines empty), Line for each line of the hunk. A nil function is skipped;
// an error stops the walk and is returned.
type Visitor struct {
	File func(*File) error
	Hunk func(*File, *Hunk) error
	Line func(*File, Line) error
}

// maxLine bounds the memory a single line may take; the rest of a longer
// line is dropped (its number still counts).
const maxLine = 1 << 20

// Walk reads a unified diff from r, holding one line at a time (and the
// current file's header). Text before the first "diff --git" or "---"
// header is skipped, so is anything between hunks that is not a diff line
// (such as the files endpoint's note on a patch it did not send).
func Walk(r io.Reader, v Visitor) error {
	w := walker{br: bufio.NewReaderSize(r, 64<<10), v: v}
	return w.run()
}

type walker struct {
	br  *bufio.Reader
	v   Visitor
	off int64 // bytes read so far

	cur      *File
	sent     bool  // cur was given to v.File
	hunk     *Hunk // the hunk being read, nil between hunks
	old, new int   // next line numbers in the hunk
	remOld   int   // lines the header announced and that did not come yet
	remNew   int
	pending  *Line // the last line, held to see a "\ No newline" after it
	inBinary bool  // inside a "GIT binary patch" block
	buf      []byte
}

// readLine returns the next line without "\n", and the offset it started at.
func (w *walker) readLine() (string, int64, error) {
	start := w.off
	w.buf = w.buf[:0]
	for {
		chunk, err := w.br.ReadSlice('\n')
		w.off += int64(len(chunk))
		if len(w.buf)+len(chunk) <= maxLine {
			w.buf = append(w.buf, chunk...)
		} else if len(w.buf) < maxLine {
			w.buf = append(w.buf, chunk[:maxLine-len(w.buf)]...)
		}
		switch {
		case err == nil:
			return string(bytes.TrimSuffix(w.buf, []byte("\n"))), start, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && w.off > start:
			return string(w.buf), start, nil
		default:
			return "", start, err
		}
	}
}

func (w *walker) run() error {
	for {
		l, start, err := w.readLine()
		if errors.Is(err, io.EOF) {
			return w.endFile(true)
		}
		if err != nil {
			return err
		}
		if err := w.line(l, start); err != nil {
			return err
		}
	}
}

// hunkLine reads l as a line of the current hunk, which has lines left:
// done when it was one (or a "\ No newline" mark), else the hunk ends
// there and l, an empty line read as an empty context line, is read as
// any other line.
func (w *walker) hunkLine(l string) (string, bool, error) {
	if l == "" {
		l = " " // an empty context line whose space an editor or mail took
	}
	var ln Line
	switch Kind(l[0]) {
	case Add:
		if w.remNew == 0 {
			break
		}
		ln = Line{Kind: Add, New: w.new, Text: l[1:]}
		w.new++
		w.remNew--
	case Del:
		if w.remOld == 0 {
			break
		}
		ln = Line{Kind: Del, Old: w.old, Text: l[1:]}
		w.old++
		w.remOld--
	case Context:
		if w.remOld == 0 || w.remNew == 0 {
			break
		}
		ln = Line{Kind: Context, Old: w.old, New: w.new, Text: l[1:]}
		w.old++
		w.new++
		w.remOld--
		w.remNew--
	case '\\':
		if w.pending != nil {
			w.pending.NoNewline = true
		}
		return l, true, nil
	}
	if ln.Kind != 0 {
		if err := w.flush(); err != nil {
			return l, true, err
		}
		w.pending = &ln
		return l, true, nil
	}
	// A line that does not fit the hunk's counts: the hunk header lied
	// or the text is not a diff. The hunk ends here.
	w.remOld, w.remNew = 0, 0
	return l, false, nil
}

func (w *walker) line(l string, start int64) error {
	if w.hunk != nil && (w.remOld > 0 || w.remNew > 0) {
		var done bool
		var err error
		if l, done, err = w.hunkLine(l); done {
			return err
		}
	}
	if strings.HasPrefix(l, `\`) {
		if w.pending != nil {
			w.pending.NoNewline = true
		}
		return nil
	}
	if err := w.flush(); err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(l, "diff --git "):
		if err := w.endFile(false); err != nil {
			return err
		}
		w.cur = &File{Start: start, Header: []string{l}}
		w.cur.OldPath, w.cur.NewPath = gitHeaderPaths(strings.TrimSuffix(l[len("diff --git "):], "\r"))
		return nil
	case strings.HasPrefix(l, "@@ ") && w.cur != nil:
		h, ok := parseHunkHeader(l)
		if !ok {
			return nil
		}
		if !w.sent {
			w.cur.PatchStart = start
		}
		if err := w.sendFile(); err != nil {
			return err
		}
		w.hunk = &h
		w.old, w.new, w.remOld, w.remNew = h.OldStart, h.NewStart, h.OldLines, h.NewLines
		w.inBinary = false
		if w.v.Hunk != nil {
			return w.v.Hunk(w.cur, w.hunk)
		}
		return nil
	case strings.HasPrefix(l, "--- ") && (w.cur == nil || w.hunk != nil || w.sent):
		// A diff without "diff --git" lines (diff -u), or a new file of
		// one after hunks: "---" opens it.
		if err := w.endFile(false); err != nil {
			return err
		}
		p := headerPath(l[4:])
		w.cur = &File{Start: start, Header: []string{l}, OldPath: p, NewPath: p}
		if p == "" {
			w.cur.IsNew = true
		}
		return nil
	}
	if w.cur == nil || w.sent || w.inBinary {
		return nil // before the first file, or text between hunks
	}
	w.header(strings.TrimSuffix(l, "\r"))
	return nil
}

// header reads one extended header line of the current file.
func (w *walker) header(l string) {
	f := w.cur
	f.Header = append(f.Header, l)
	cut := func(p string) (string, bool) {
		s, ok := strings.CutPrefix(l, p)
		return s, ok
	}
	if s, ok := cut("--- "); ok {
		if p := headerPath(s); p != "" || strings.TrimSpace(s) == "/dev/null" {
			f.OldPath = p
		}
		if f.OldPath == "" {
			f.IsNew = true
		}
	} else if s, ok := cut("+++ "); ok {
		if p := headerPath(s); p != "" || strings.TrimSpace(s) == "/dev/null" {
			f.NewPath = p
		}
		if f.NewPath == "" {
			f.IsDeleted = true
		}
	} else if s, ok := cut("rename from "); ok {
		f.OldPath, f.IsRename = unquote(s), true
	} else if s, ok := cut("rename to "); ok {
		f.NewPath, f.IsRename = unquote(s), true
	} else if s, ok := cut("copy from "); ok {
		f.OldPath, f.IsCopy = unquote(s), true
	} else if s, ok := cut("copy to "); ok {
		f.NewPath, f.IsCopy = unquote(s), true
	} else if s, ok := cut("new file mode "); ok {
		f.NewMode, f.IsNew, f.OldPath = s, true, ""
	} else if s, ok := cut("deleted file mode "); ok {
		f.OldMode, f.IsDeleted, f.NewPath = s, true, ""
	} else if s, ok := cut("old mode "); ok {
		f.OldMode = s
	} else if s, ok := cut("new mode "); ok {
		f.NewMode = s
	} else if s, ok := cut("index "); ok {
		if _, mode, ok := strings.Cut(s, " "); ok && f.OldMode == "" && f.NewMode == "" {
			f.OldMode, f.NewMode = mode, mode
		}
	} else if strings.HasPrefix(l, "Binary files ") && strings.HasSuffix(l, " differ") {
		f.IsBinary = true
	} else if l == "GIT binary patch" {
		f.IsBinary, w.inBinary = true, true
	}
	if f.OldMode == "160000" || f.NewMode == "160000" {
		f.IsSubmodule = true
	}
}

// flush gives the held line to the visitor.
func (w *walker) flush() error {
	if w.pending == nil {
		return nil
	}
	l := *w.pending
	w.pending = nil
	if w.v.Line != nil {
		return w.v.Line(w.cur, l)
	}
	return nil
}

func (w *walker) sendFile() error {
	if w.cur == nil || w.sent {
		return nil
	}
	w.sent = true
	if w.v.File != nil {
		return w.v.File(w.cur)
	}
	return nil
}

// endFile closes the current file; atEOF says the input ended.
func (w *walker) endFile(atEOF bool) error {
	if err := w.flush(); err != nil {
		return err
	}
	if w.cur != nil && atEOF && w.hunk != nil && (w.remOld > 0 || w.remNew > 0) {
		w.cur.Truncated = true
	}
	err := w.sendFile()
	w.cur, w.sent, w.hunk, w.remOld, w.remNew, w.inBinary = nil, false, nil, 0, 0, false
	return err
}

// Parse reads a whole diff into its files, hunks and lines.
func Parse(b []byte) ([]*File, error) {
	var files []*File
	var hunk *Hunk
	err := Walk(bytes.NewReader(b), Visitor{
		File: func(f *File) error {
			if n := len(files); n > 0 {
				files[n-1].End = f.Start
			}
			files = append(files, f)
			hunk = nil
			return nil
		},
		Hunk: func(f *File, h *Hunk) error {
			f.Hunks = append(f.Hunks, *h)
			hunk = &f.Hunks[len(f.Hunks)-1]
			return nil
		},
		Line: func(_ *File, l Line) error {
			hunk.Lines = append(hunk.Lines, l)
			return nil
		},
	})
	if n := len(files); n > 0 {
		files[n-1].End = int64(len(b))
	}
	for _, f := range files {
		if len(f.Hunks) == 0 {
			f.PatchStart = f.End
		}
	}
	return files, err
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@ section".
func parseHunkHeader(l string) (Hunk, bool) {
	l = strings.TrimSuffix(l, "\r")
	rest, ok := strings.CutPrefix(l, "@@ -")
	if !ok {
		return Hunk{}, false
	}
	ranges, section, ok := strings.Cut(rest, " @@")
	if !ok {
		return Hunk{}, false
	}
	o, n, ok := strings.Cut(ranges, " +")
	if !ok {
		return Hunk{}, false
	}
	var h Hunk
	if h.OldStart, h.OldLines, ok = parseRange(o); !ok {
		return Hunk{}, false
	}
	if h.NewStart, h.NewLines, ok = parseRange(n); !ok {
		return Hunk{}, false
	}
	h.Section = strings.TrimPrefix(section, " ")
	return h, true
}

func parseRange(s string) (start, lines int, ok bool) {
	a, b, two := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	lines = 1
	if two {
		if lines, err = strconv.Atoi(b); err != nil || lines < 0 {
			return 0, 0, false
		}
	}
	// Line 0 is where an empty side starts; no line has that number.
	return start, lines, start > 0 || lines == 0
}

// headerPath is the path of a "--- a/p" or "+++ b/p" header; "" for
// /dev/null. A path ends at a tab (git puts one after a name with a space,
// diff a timestamp; git quotes a name that holds a tab).
func headerPath(s string) string {
	s = strings.TrimSuffix(s, "\r")
	if strings.HasPrefix(s, `"`) {
		if q, _, ok := quotedPrefix(s); ok {
			return stripPrefix(q)
		}
	}
	s, _, _ = strings.Cut(s, "\t")
	if s == "/dev/null" {
		return ""
	}
	return stripPrefix(s)
}

func stripPrefix(p string) string {
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		return p[2:]
	}
	return p
}

// unquote reads git's C-style quoted name ("\303\251", "\t", "\"");
// anything else is returned as it is.
func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' {
		return s
	}
	if p, err := strconv.Unquote(s); err == nil {
		return p
	}
	return s
}

// gitHeaderPaths reads the two paths of a "diff --git a/x b/y" line. With
// spaces in unquoted names the line is ambiguous unless both names are
// the same; the "---"/"+++" and "rename" lines that follow settle it.
func gitHeaderPaths(s string) (string, string) {
	if strings.HasPrefix(s, `"`) {
		if q, rest, ok := quotedPrefix(s); ok {
			return stripPrefix(q), stripPrefix(unquote(strings.TrimPrefix(rest, " ")))
		}
	}
	if i := strings.Index(s, ` "`); i >= 0 && strings.HasSuffix(s, `"`) {
		if b, err := strconv.Unquote(s[i+1:]); err == nil {
			return stripPrefix(s[:i]), stripPrefix(b)
		}
	}
	if n := len(s); n%2 == 1 {
		a, b := s[:n/2], s[n/2+1:]
		if s[n/2] == ' ' && len(a) > 2 && a[2:] == b[2:] {
			return stripPrefix(a), stripPrefix(b)
		}
	}
	if i := strings.Index(s, " b/"); i >= 0 {
		return stripPrefix(s[:i]), s[i+3:]
	}
	return stripPrefix(s), stripPrefix(s)
}

// quotedPrefix splits a quoted name off the front of s.
func quotedPrefix(s string) (name, rest string, ok bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			p, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", false
			}
			return p, s[i+1:], true
		}
	}
	return "", "", false
}
