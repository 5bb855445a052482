// Package repofs is the agents' view of a repository checkout: reads for every
// role, writes for pr-fix, and never a step outside the checkout. Confinement
// rests on os.Root (no "..", no absolute paths, no symlink leading out); .git
// is off limits, since a write there (a hook, a config) would run code.
package repofs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Limits keep tool results small enough for a model's context.
const (
	MaxReadBytes  = 64 << 10 // longest read_file result
	MaxListItems  = 500      // entries of list_files
	MaxMatches    = 100      // lines of search
	maxSearchFile = 1 << 20  // files larger than this are not searched
)

// ErrOutside is returned for a path that leaves the repository or enters .git.
var ErrOutside = errors.New("path is outside the repository")

// Repo is a checkout the agents may use.
type Repo struct {
	root *os.Root
	dir  string // as opened
	real string // with symlinks resolved
}

// Open opens the checkout at dir.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	return &Repo{root: r, dir: abs, real: real}, nil
}

// resolve cleans p and makes sure that, symlinks followed, it does not land
// in .git: os.Root keeps paths inside the checkout, but .git is inside too.
func (r *Repo) resolve(p string) (string, error) {
	c, err := Clean(p)
	if err != nil {
		return "", err
	}
	existing := filepath.Join(r.real, filepath.FromSlash(c))
	for {
		if _, err := os.Lstat(existing); err == nil || existing == r.real {
			break
		}
		existing = filepath.Dir(existing)
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return c, nil // os.Root reports it when the path is used
	}
	rel, err := filepath.Rel(r.real, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%w: %q leads out of it (through a symlink)", ErrOutside, p)
	}
	if rel = filepath.ToSlash(rel); rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return "", fmt.Errorf("%w: %q leads into .git", ErrOutside, p)
	}
	return c, nil
}

// Close releases the directory handle.
func (r *Repo) Close() error { return r.root.Close() }

// Dir is the checkout's absolute path.
func (r *Repo) Dir() string { return r.dir }

// Clean validates a repository-relative path (slash-separated) and returns
// it in canonical form ("." for the root). Symlinks are checked by os.Root
// when the path is used.
func Clean(p string) (string, error) {
	if p == "" || p == "." {
		return ".", nil
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: %q holds a NUL byte", ErrOutside, p)
	}
	if path.IsAbs(p) || filepath.IsAbs(p) || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return "", fmt.Errorf("%w: %q is absolute; give a path relative to the repository root", ErrOutside, p)
	}
	p = filepath.ToSlash(p)
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: %q uses \"..\"", ErrOutside, p)
		}
	}
	c := path.Clean(p)
	if c == ".git" || strings.HasPrefix(c, ".git/") {
		return "", fmt.Errorf("%w: %q is inside .git", ErrOutside, p)
	}
	return c, nil
}

// ReadFile returns lines start..end (1-based, inclusive; 0 means from the
// first or to the last) of a file, cut at MaxReadBytes with a notice.
func (r *Repo) ReadFile(p string, start, end int) (string, error) {
	c, err := r.resolve(p)
	if err != nil {
		return "", err
	}
	b, err := r.root.ReadFile(c)
	if err != nil {
		return "", describe(err, p)
	}
	return Lines(p, b, start, end)
}

// Lines is what read_file shows of a file's content b: lines start..end
// (1-based, inclusive; 0 means from the first or to the last), cut at
// MaxReadBytes with a notice. Binary files are refused.
func Lines(p string, b []byte, start, end int) (string, error) {
	if bytes.IndexByte(b, 0) >= 0 {
		return "", fmt.Errorf("%s is a binary file", p)
	}
	if start > 0 || end > 0 {
		lines := strings.SplitAfter(string(b), "\n")
		if start < 1 {
			start = 1
		}
		if end < 1 || end > len(lines) {
			end = len(lines)
		}
		if start > end {
			return "", fmt.Errorf("%s has %d lines; start_line %d is past the end", p, len(lines), start)
		}
		b = []byte(strings.Join(lines[start-1:end], ""))
	}
	if len(b) > MaxReadBytes {
		cut := bytes.LastIndexByte(b[:MaxReadBytes], '\n') + 1
		return string(b[:cut]) + fmt.Sprintf("[truncated at %d bytes: read a line range with start_line and end_line]\n", cut), nil
	}
	return string(b), nil
}

// List returns the entries below dir (recursively, files only, sorted),
// without .git, at most MaxListItems.
func (r *Repo) List(dir string) ([]string, bool, error) {
	c, err := r.resolve(dir)
	if err != nil {
		return nil, false, err
	}
	var out []string
	more := false
	err = fs.WalkDir(r.root.FS(), c, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		if len(out) == MaxListItems {
			more = true
			return fs.SkipAll
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, false, describe(err, dir)
	}
	sort.Strings(out)
	return out, more, nil
}

// Match is one line found by Search.
type Match struct {
	Path string
	Line int
	Text string
}

// Search finds lines matching an RE2 pattern in text files below dir.
func (r *Repo) Search(pattern, dir string) ([]Match, bool, error) {
	files, _, err := r.List(dir)
	if err != nil {
		return nil, false, err
	}
	return r.SearchFiles(pattern, files)
}

// SearchFiles is Search over the given files (as List names them) only.
func (r *Repo) SearchFiles(pattern string, files []string) ([]Match, bool, error) {
	re, err := compile(pattern)
	if err != nil {
		return nil, false, err
	}
	var out []Match
	for _, f := range files {
		info, err := r.root.Lstat(f)
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxSearchFile {
			continue // symlinks too: their target is searched where it lives
		}
		b, err := r.root.ReadFile(f)
		if err != nil {
			continue
		}
		var full bool
		if out, full = grep(re, f, b, out); full {
			return out, true, nil
		}
	}
	return out, false, nil
}

func compile(pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid pattern (RE2 syntax): %v", err)
	}
	return re, nil
}

// grep appends the lines of file p (content b) that re matches to out;
// full reports that MaxMatches was passed (out holds MaxMatches). Binary
// files are skipped.
func grep(re *regexp.Regexp, p string, b []byte, out []Match) (_ []Match, full bool) {
	if bytes.IndexByte(b, 0) >= 0 {
		return out, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), maxSearchFile)
	for n := 1; sc.Scan(); n++ {
		if re.Match(sc.Bytes()) {
			if len(out) == MaxMatches {
				return out, true
			}
			text := sc.Text()
			if len(text) > 300 {
				text = text[:300] + "…"
			}
			out = append(out, Match{Path: p, Line: n, Text: text})
		}
	}
	return out, false
}

// WriteFile creates or replaces a file (and its directories) with content.
func (r *Repo) WriteFile(p, content string) error {
	c, err := r.resolve(p)
	if err != nil {
		return err
	}
	if c == "." {
		return fmt.Errorf("%q is the repository root, not a file", p)
	}
	if d := path.Dir(c); d != "." {
		if err := r.root.MkdirAll(d, 0o755); err != nil {
			return describe(err, p)
		}
	}
	mode := fs.FileMode(0o644)
	if info, err := r.root.Stat(c); err == nil {
		mode = info.Mode().Perm()
	}
	if err := r.root.WriteFile(c, []byte(content), mode); err != nil {
		return describe(err, p)
	}
	return nil
}

// Edit replaces old with new in a file; old must occur exactly once.
func (r *Repo) Edit(p, old, new string) error {
	c, err := r.resolve(p)
	if err != nil {
		return err
	}
	if old == "" {
		return errors.New("old_string is empty: give the exact text to replace")
	}
	b, err := r.root.ReadFile(c)
	if err != nil {
		return describe(err, p)
	}
	switch n := strings.Count(string(b), old); n {
	case 0:
		return fmt.Errorf("old_string not found in %s: read the file and copy the text exactly", p)
	case 1:
		return r.WriteFile(c, strings.Replace(string(b), old, new, 1))
	default:
		return fmt.Errorf("old_string occurs %d times in %s: include more surrounding text so it matches once", n, p)
	}
}

// describe turns os.Root's errors into messages for the model.
func describe(err error, p string) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist", p)
	case strings.Contains(err.Error(), "path escapes from parent"):
		return fmt.Errorf("%w: %q leads out of it (through a symlink)", ErrOutside, p)
	}
	return err
}
