// Package repofs is the agents' view of a repository checkout: reads for every
// role, writes for pr-fix, and never a step outside the checkout. Confinement
// rests on os.Root (no "..", no absolute paths, no symlink leading out); any
// .git, at any depth, is off limits, since a write there (a hook, a config,
// a nested repository) would run code; and pr-fix may not change the files
// that set the repository's policy (see Writable).
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

	"github.com/ocdx/gh-ocdx/internal/redact"
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

// ErrProtected is returned for a path inside the repository that the fix
// agent may not create or change.
var ErrProtected = errors.New("path is protected")

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
// in a .git: os.Root keeps paths inside the checkout, but .git is inside
// too. It returns the clean path and the path it leads to, both relative to
// the root.
func (r *Repo) resolve(p string) (clean, real string, err error) {
	c, err := Clean(p)
	if err != nil {
		return "", "", err
	}
	// The deepest part of the path that exists is where a symlink may be;
	// the rest is appended to where that part leads.
	existing, tail := filepath.Join(r.real, filepath.FromSlash(c)), ""
	for {
		if _, err := os.Lstat(existing); err == nil || existing == r.real {
			break
		}
		tail = path.Join(filepath.Base(existing), tail)
		existing = filepath.Dir(existing)
	}
	resolved, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return c, c, nil // os.Root reports it when the path is used
	}
	rel, err := filepath.Rel(r.real, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", "", fmt.Errorf("%w: %q leads out of it (through a symlink)", ErrOutside, p)
	}
	real = path.Join(filepath.ToSlash(rel), tail)
	if hasDotGit(real) {
		return "", "", fmt.Errorf("%w: %q leads into a .git directory (through a symlink)", ErrOutside, p)
	}
	return c, real, nil
}

// resolveWrite is resolve for a path the fix agent writes: neither the path
// nor where it leads may be protected.
func (r *Repo) resolveWrite(p string) (string, error) {
	c, real, err := r.resolve(p)
	if err != nil {
		return "", err
	}
	if err := Writable(c); err != nil {
		return "", err
	}
	if real != c {
		if err := Writable(real); err != nil {
			return "", fmt.Errorf("%q leads to %s (through a symlink): %w", p, real, err)
		}
	}
	return c, nil
}

// Check is what the file tools check before they use p: it stays inside
// the repository, symlinks followed, and out of any .git. It returns p
// cleaned.
func (r *Repo) Check(p string) (string, error) {
	c, _, err := r.resolve(p)
	return c, err
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
	if hasDotGit(c) {
		return "", fmt.Errorf("%w: %q is inside a .git directory; git's files, and repositories nested in this one, are off limits: use the project's own files", ErrOutside, p)
	}
	return c, nil
}

// Writable reports whether the fix agent may create or change the clean
// repository-relative path p. It may not touch any .git, .gitmodules
// (a submodule would have git enter a repository the agent chose), nor the
// files that set the repository's policy, which a pull request must not
// rewrite for gh-ocdx to follow: .ocdx.json and REVIEW.md (at any depth);
// nor what runs or decides once the fix is pushed or merged: GitHub's
// workflows and local actions (.github/workflows/, .github/actions/),
// CODEOWNERS and .gitattributes (its filter, diff and merge drivers) at any
// depth. Names are compared as case-insensitive file systems (macOS,
// Windows) would.
func Writable(p string) error {
	if hasDotGit(p) {
		return fmt.Errorf("%w: %q is inside a .git directory; git's files, and repositories nested in this one, are off limits: use the project's own files", ErrOutside, p)
	}
	parts := strings.Split(p, "/")
	for _, part := range parts {
		if f := fold(part); f == ".gitmodules" || strings.HasPrefix(f, "gitmod~") {
			return fmt.Errorf("%w: %q declares submodules, which the fix agent may not add or change: leave submodules to a maintainer", ErrProtected, p)
		}
	}
	base := fold(parts[len(parts)-1])
	if base == ".ocdx.json" || base == "review.md" || base == "codeowners" || base == ".gitattributes" ||
		len(parts) >= 2 && fold(parts[0]) == ".github" && (fold(parts[1]) == "workflows" || fold(parts[1]) == "actions") {
		return fmt.Errorf("%w: %q is a repository policy file (.ocdx.json, REVIEW.md, .github/workflows/, .github/actions/, CODEOWNERS, .gitattributes): the fix agent may not create or change it; if a finding needs it changed, reject the finding and say what a maintainer should change", ErrProtected, p)
	}
	return nil
}

// hasDotGit reports whether a component of the slash-separated path p is
// a .git, as any file system would name it.
func hasDotGit(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if f := fold(part); f == ".git" || f == "git~1" {
			return true
		}
	}
	return false
}

// fold is a path component as case-insensitive file systems compare it:
// lower case, without the code points HFS+ ignores, without the trailing
// dots and spaces and the ":stream" suffix NTFS ignores (".Git. " is .git
// there).
func fold(name string) string {
	name = strings.Map(func(r rune) rune {
		if r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff {
			return -1
		}
		return r
	}, name)
	if i := strings.IndexByte(name, ':'); i > 0 {
		name = name[:i]
	}
	return strings.ToLower(strings.TrimRight(name, ". "))
}

// ReadFile returns lines start..end (1-based, inclusive; 0 means from the
// first or to the last) of a file, cut at MaxReadBytes with a notice.
func (r *Repo) ReadFile(p string, start, end int) (string, error) {
	c, _, err := r.resolve(p)
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
	c, _, err := r.resolve(dir)
	if err != nil {
		return nil, false, err
	}
	var out []string
	more := false
	err = fs.WalkDir(r.root.FS(), c, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if hasDotGit(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil // a submodule's gitdir file
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
	c, err := r.resolveWrite(p)
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
	c, err := r.resolveWrite(p)
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
	content := string(b)
	n := strings.Count(content, old)
	replace := func() (string, error) { return strings.Replace(content, old, new, 1), nil }
	if n == 0 && redact.HasMarker(old) {
		// The model read the file masked: each [SECRET:kind] it copied
		// stands for the hidden value, so it can move a secret out.
		m, err := redact.MatchMasked(content, old)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		n, replace = m.Count(), func() (string, error) { return m.Replace(new) }
	}
	switch n {
	case 0:
		return fmt.Errorf("old_string not found in %s: read the file and copy the text exactly", p)
	case 1:
		out, err := replace()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		return r.WriteFile(c, out)
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
