package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// The git plumbing of a local review (gh ocdx review): which base, which
// merge base, the working tree as a tree, what changed, which remote.

// DefaultBase checks base, or finds the upstream's default branch: the one
// origin/HEAD names, else main, else master.
func (r *Repo) DefaultBase(ctx context.Context, base string) (string, error) {
	if base != "" {
		if _, err := r.Run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", base+"^{commit}"); err != nil {
			return "", fmt.Errorf("--base %s is not a branch or commit of this repository: fetch it, or name another", base)
		}
		return base, nil
	}
	if ref, err := r.Run(ctx, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); err == nil && ref != "" {
		return ref, nil
	}
	for _, b := range []string{"main", "master", "origin/main", "origin/master"} {
		if _, err := r.Run(ctx, "rev-parse", "--verify", "--quiet", b+"^{commit}"); err == nil {
			return b, nil
		}
	}
	return "", errors.New("no base branch found: origin/HEAD is not set (git remote set-head origin --auto) and there is no main or master; name one with --base")
}

// MergeBase is the newest commit base and HEAD share.
func (r *Repo) MergeBase(ctx context.Context, base, branch string) (string, error) {
	mb, err := r.Run(ctx, "merge-base", "--end-of-options", base, "HEAD")
	if err != nil {
		return "", fmt.Errorf("%s and %s have no common commit (%v): name another base with --base", base, branch, err)
	}
	if isSHA(mb) {
		r.known.Store("commit "+mb, true) // the history scan's question
	}
	return mb, nil
}

// Snapshot writes the tracked files as the working tree has them (staged
// and unstaged changes) to a git tree, through a copy of the index: the
// user's index is not touched, and untracked files are not in it.
func (r *Repo) Snapshot(ctx context.Context) (string, error) {
	index := r.index
	if index == "" {
		var err error
		if index, err = r.Run(ctx, "rev-parse", "--path-format=absolute", "--git-path", "index"); err != nil {
			return "", err
		}
	}
	tmp, err := os.CreateTemp("", "gh-ocdx-index-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if b, err := os.ReadFile(index); err == nil {
		if err := os.WriteFile(tmp.Name(), b, 0o600); err != nil {
			return "", err
		}
		// The copy keeps the index's time: git trusts an entry's file times
		// only when they are older than the index, and compares the
		// contents of a file changed in the second the index was written
		// (racy git). A copy made later would hide such a change.
		if info, err := os.Stat(index); err != nil {
			return "", err
		} else if err := os.Chtimes(tmp.Name(), time.Time{}, info.ModTime()); err != nil {
			return "", err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	withIndex := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		c := r.Command(ctx, args...)
		c.Env = append(c.Env, "GIT_INDEX_FILE="+tmp.Name())
		c.Stdout, c.Stderr = &out, &errOut
		if err := c.Run(); err != nil {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(errOut.String()))
		}
		return strings.TrimSpace(out.String()), nil
	}
	if _, err := withIndex("add", "--update", "--", "."); err != nil {
		return "", fmt.Errorf("reading the working tree's changes: %w", err)
	}
	return withIndex("write-tree")
}

// diffArgs are the options of every diff of a local review: no program
// from the configuration. Its diffs are of two trees, so a submodule is
// only its pointer ("Subproject commit"), never entered, as in a PR's diff.
var diffArgs = []string{"diff", "--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=none"}

// Diff is the unified diff from one tree-ish to another. Its files'
// counts come in the same git process (--numstat first, then the patch),
// kept for Numstat of the same two full IDs.
func (r *Repo) Diff(ctx context.Context, from, to string) ([]byte, error) {
	var b bytes.Buffer
	if err := r.RunIO(ctx, nil, &b, append(diffArgs, "--numstat", "-z", "-p", "--end-of-options", from, to, "--")...); err != nil {
		return nil, err
	}
	stats, patch, err := splitNumstat(b.Bytes())
	if err == nil && isSHA(from) && isSHA(to) {
		r.known.Store("numstat "+from+" "+to, stats)
	}
	return patch, err
}

// splitNumstat reads git diff --numstat -z -p: the counts, a record each,
// an empty record, then the patch (none of either when nothing changed).
func splitNumstat(out []byte) ([]FileStat, []byte, error) {
	recs, rest := 0, out
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			break
		}
		rec := rest[:i]
		rest = rest[i+1:]
		switch {
		case len(rec) == 0 && recs == 0:
			return nil, nil, errors.New("git diff: no counts before the patch")
		case len(rec) == 0:
			return parseNumstat(string(out[:len(out)-len(rest)-1])), rest, nil
		case bytes.Count(rec, []byte("\t")) == 2 && bytes.HasSuffix(rec, []byte("\t")):
			// A rename: its old and new names are the next two records.
			for range 2 {
				if i := bytes.IndexByte(rest, 0); i > 0 {
					rest = rest[i+1:]
				}
			}
		}
		recs++
	}
	if len(out) > 0 {
		return nil, nil, errors.New("git diff: the counts do not end")
	}
	return nil, nil, nil
}

// FileStat is one file of a diff: its path (the new one, for a rename) and
// its added and deleted line counts (0 for a binary file).
type FileStat struct {
	Path                 string
	Additions, Deletions int
}

// Numstat is what changed from one tree-ish to another, file by file:
// what Diff of the same two full IDs read, else asked.
func (r *Repo) Numstat(ctx context.Context, from, to string) ([]FileStat, error) {
	if v, ok := r.known.Load("numstat " + from + " " + to); ok {
		return v.([]FileStat), nil
	}
	var b strings.Builder
	if err := r.RunIO(ctx, nil, &b, append(diffArgs, "--numstat", "-z", "--end-of-options", from, to, "--")...); err != nil {
		return nil, err
	}
	return parseNumstat(b.String()), nil
}

// parseNumstat reads git diff --numstat -z (a rename is "a\td\t\x00old\x00new").
func parseNumstat(out string) []FileStat {
	var files []FileStat
	recs := strings.Split(out, "\x00")
	for i := 0; i < len(recs); i++ {
		f := strings.SplitN(recs[i], "\t", 3)
		if len(f) != 3 {
			continue
		}
		path := f[2]
		if path == "" && i+2 < len(recs) { // a rename: the new name
			path = recs[i+2]
			i += 2
		}
		add, _ := strconv.Atoi(f[0]) // "-" for a binary file
		del, _ := strconv.Atoi(f[1])
		files = append(files, FileStat{Path: path, Additions: add, Deletions: del})
	}
	return files
}

// Untracked lists the files git does not track and does not ignore.
func (r *Repo) Untracked(ctx context.Context) ([]string, error) {
	var b strings.Builder
	if err := r.RunIO(ctx, nil, &b, "ls-files", "-z", "--others", "--exclude-standard"); err != nil {
		return nil, err
	}
	out := []string{}
	for _, p := range strings.Split(b.String(), "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// Blob is the file at path in commit; found is false when the commit has
// no such file.
func (r *Repo) Blob(ctx context.Context, commit, path string) (data []byte, found bool, err error) {
	if !isSHA(commit) {
		return nil, false, fmt.Errorf("reading %s: %q is not a commit id", path, commit)
	}
	if strings.ContainsAny(path, "\n\x00") {
		return nil, false, fmt.Errorf("reading %q: not a path", path)
	}
	// One process whether or not it is there: "<name> missing", or
	// "<ID> <type> <size>" and the object.
	var b bytes.Buffer
	if err := r.RunIO(ctx, strings.NewReader(commit+":"+path+"\n"), &b, "cat-file", "--batch"); err != nil {
		return nil, false, err
	}
	head, body, _ := bytes.Cut(b.Bytes(), []byte("\n"))
	if bytes.HasSuffix(head, []byte(" missing")) {
		return nil, false, nil
	}
	f := strings.Fields(string(head))
	size := -1
	if len(f) == 3 {
		if n, err := strconv.Atoi(f[2]); err == nil {
			size = n
		}
	}
	if size < 0 || size > len(body) {
		return nil, false, fmt.Errorf("reading %s at %s: git cat-file said %q", path, text.ShortOID(commit), text.OneLine(string(head)))
	}
	if f[1] != "blob" {
		return nil, false, fmt.Errorf("reading %s at %s: a %s, not a file", path, text.ShortOID(commit), f[1])
	}
	return body[:size], true, nil
}

// OriginID names the repository by its origin as host/owner/repo however
// the remote is spelled (so two clones share a record), else its directory.
func (r *Repo) OriginID(ctx context.Context) string {
	raw, err := r.Run(ctx, "config", "--get", "remote.origin.url")
	if err == nil && raw != "" {
		s := raw
		if !strings.Contains(s, "://") { // scp form: git@host:owner/repo.git
			if at := strings.Index(s, "@"); at >= 0 && at < strings.Index(s, ":") {
				s = s[at+1:]
			}
			s = "ssh://" + strings.Replace(s, ":", "/", 1)
		}
		if u, err := url.Parse(s); err == nil && u.Host != "" && u.Scheme != "file" {
			return strings.ToLower(u.Hostname() + "/" + strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git"))
		}
	}
	return r.Dir
}

// NotTracked lists the files of the work tree that git does not track at
// head, ignored ones included: what a CI step wrote, never what the PR
// committed (docs/architecture.md, Evidence).
func (r *Repo) NotTracked(ctx context.Context, head string) ([]string, error) {
	if !isSHA(head) {
		return nil, fmt.Errorf("listing files: %q is not a commit id", head)
	}
	var others, tracked strings.Builder
	if err := r.RunIO(ctx, nil, &others, "ls-files", "-z", "--others"); err != nil {
		return nil, err
	}
	if err := r.RunIO(ctx, nil, &tracked, "ls-tree", "-r", "-z", "--name-only", head); err != nil {
		return nil, err
	}
	atHead := map[string]bool{}
	for _, p := range strings.Split(tracked.String(), "\x00") {
		atHead[p] = true
	}
	out := []string{}
	for _, p := range strings.Split(others.String(), "\x00") {
		if p != "" && !atHead[p] {
			out = append(out, p)
		}
	}
	return out, nil
}
