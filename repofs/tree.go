package repofs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// Git runs git in a repository: what *git.Repo provides.
type Git interface {
	RunIO(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error
}

// Tree is the read-only view of one commit's tracked files, read from git's
// object store: what the PR's head holds, whatever the work tree has beside
// it (ignored or untracked files, such as a local .env, do not exist here).
// Symbolic links are not followed and submodules are not entered.
type Tree struct {
	ctx    context.Context
	git    Git
	commit string

	once    sync.Once
	err     error
	paths   []string // sorted
	entries map[string]treeEntry
}

type treeEntry struct {
	mode, typ, oid string
	size           int64 // -1 for a submodule
}

// Modes of git tree entries that are not plain files.
const (
	modeSymlink   = "120000"
	modeSubmodule = "160000"
)

// maxTreeRead is the largest file read_file reads from a tree (it shows at
// most MaxReadBytes of it, from the range asked for).
const maxTreeRead = 8 << 20

// NewTree is the view of commit (a full object name) in the repository g
// runs in; ctx bounds every git command it runs.
func NewTree(ctx context.Context, g Git, commit string) *Tree {
	return &Tree{ctx: ctx, git: g, commit: commit}
}

// Commit is the commit the view shows.
func (t *Tree) Commit() string { return t.commit }

// load lists the tree once: one git process for the whole view.
func (t *Tree) load() error {
	t.once.Do(func() {
		if !isObjectName(t.commit) {
			t.err = fmt.Errorf("%q is not a commit's full object name", t.commit)
			return
		}
		var out bytes.Buffer
		if err := t.git.RunIO(t.ctx, nil, &out, "ls-tree", "-r", "-z", "-l", "--full-tree", t.commit); err != nil {
			t.err = err
			return
		}
		t.entries = map[string]treeEntry{}
		for _, rec := range bytes.Split(out.Bytes(), []byte{0}) {
			meta, p, ok := bytes.Cut(rec, []byte{'\t'})
			if !ok {
				continue
			}
			f := strings.Fields(string(meta))
			if len(f) != 4 {
				continue
			}
			e := treeEntry{mode: f[0], typ: f[1], oid: f[2], size: -1}
			if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
				e.size = n
			}
			t.entries[string(p)] = e
			t.paths = append(t.paths, string(p))
		}
		sort.Strings(t.paths)
	})
	return t.err
}

func isObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// notTracked is the answer for any path the commit does not hold: whether
// it exists in the work tree is not said.
func (t *Tree) notTracked(p string) error {
	return fmt.Errorf("%s is not tracked at the PR's head (%s): only files committed there are readable; list_files shows them", p, text.ShortOID(t.commit))
}

// under lists the paths at or below c ("." for all).
func (t *Tree) under(c string) []string {
	if c == "." {
		return t.paths
	}
	if _, ok := t.entries[c]; ok {
		return []string{c}
	}
	i := sort.SearchStrings(t.paths, c+"/")
	j := i
	for j < len(t.paths) && strings.HasPrefix(t.paths[j], c+"/") {
		j++
	}
	return t.paths[i:j]
}

// ReadFile returns lines start..end (1-based, inclusive; 0 means from the
// first or to the last) of a file at the commit, cut at MaxReadBytes.
func (t *Tree) ReadFile(p string, start, end int) (string, error) {
	c, err := Clean(p)
	if err != nil {
		return "", err
	}
	if err := t.load(); err != nil {
		return "", err
	}
	e, ok := t.entries[c]
	if !ok {
		if c == "." || len(t.under(c)) > 0 {
			return "", fmt.Errorf("%s is a directory: list_files lists it", p)
		}
		return "", t.notTracked(p)
	}
	switch {
	case e.mode == modeSubmodule:
		return "", fmt.Errorf("%s is a submodule (commit %s): its files are in another repository and are not read", p, text.ShortOID(e.oid))
	case e.size > maxTreeRead:
		return "", fmt.Errorf("%s is %d bytes, more than the %d read_file reads", p, e.size, maxTreeRead)
	}
	var b []byte
	if err := t.blobs([]string{e.oid}, func(_ int, content []byte) bool { b = content; return false }); err != nil {
		return "", err
	}
	if e.mode == modeSymlink {
		target := strings.ToValidUTF8(string(b), "?")
		if len(target) > 1024 {
			target = target[:1024] + "…"
		}
		return "", fmt.Errorf("%s is a symbolic link to %q; links are not followed: read the file it names, if that is tracked", p, target)
	}
	return Lines(p, b, start, end)
}

// List returns the tracked paths below dir (recursively, sorted), at most
// MaxListItems; a submodule is shown as such.
func (t *Tree) List(dir string) ([]string, bool, error) {
	c, err := Clean(dir)
	if err != nil {
		return nil, false, err
	}
	if err := t.load(); err != nil {
		return nil, false, err
	}
	paths := t.under(c)
	if len(paths) == 0 && c != "." {
		return nil, false, t.notTracked(dir)
	}
	more := len(paths) > MaxListItems
	if more {
		paths = paths[:MaxListItems]
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if e := t.entries[p]; e.mode == modeSubmodule {
			out[i] = fmt.Sprintf("%s [submodule at %s: not readable]", p, text.ShortOID(e.oid))
		}
	}
	return out, more, nil
}

// Search finds lines matching an RE2 pattern in the text files below dir,
// all read by one git process.
func (t *Tree) Search(pattern, dir string) ([]Match, bool, error) {
	re, err := compile(pattern)
	if err != nil {
		return nil, false, err
	}
	c, err := Clean(dir)
	if err != nil {
		return nil, false, err
	}
	if err := t.load(); err != nil {
		return nil, false, err
	}
	all := t.under(c)
	if len(all) == 0 && c != "." {
		return nil, false, t.notTracked(dir)
	}
	var paths, oids []string
	for _, p := range all {
		// Links and submodules are not followed; large files are skipped.
		if e := t.entries[p]; e.typ == "blob" && e.mode != modeSymlink && e.size <= maxSearchFile {
			paths, oids = append(paths, p), append(oids, e.oid)
		}
	}
	var out []Match
	full := false
	err = t.blobs(oids, func(i int, b []byte) bool {
		out, full = grep(re, paths[i], b, out)
		return !full
	})
	return out, full, err
}

// errStop ends a batch read early.
var errStop = errors.New("enough read")

// blobs reads the blobs oids with one cat-file process and hands each to
// fn in order, until fn returns false.
func (t *Tree) blobs(oids []string, fn func(i int, content []byte) bool) error {
	if len(oids) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := t.git.RunIO(ctx, strings.NewReader(strings.Join(oids, "\n")+"\n"), pw, "cat-file", "--batch")
		pw.CloseWithError(err)
		done <- err
	}()
	err := readBatch(bufio.NewReader(pr), len(oids), fn)
	pr.CloseWithError(errStop) // a git still writing stops
	cancel()
	gitErr := <-done
	if err == errStop {
		return nil
	}
	if err != nil {
		if gitErr != nil && !errors.Is(gitErr, context.Canceled) {
			return gitErr
		}
		return err
	}
	return nil
}

// readBatch parses n answers of cat-file --batch: "<oid> <type> <size>\n"
// then the content and "\n", or "<name> missing\n".
func readBatch(r *bufio.Reader, n int, fn func(i int, content []byte) bool) error {
	for i := range n {
		head, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("reading from git cat-file: %w", err)
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			return fmt.Errorf("git cat-file: %s", strings.TrimSpace(head))
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("git cat-file: bad size in %q", strings.TrimSpace(head))
		}
		b := make([]byte, size+1)
		if _, err := io.ReadFull(r, b); err != nil {
			return fmt.Errorf("reading from git cat-file: %w", err)
		}
		if !fn(i, b[:size]) {
			return errStop
		}
	}
	return nil
}
