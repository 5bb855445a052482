package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/cli/go-gh/v2/pkg/api"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// Diff reads at most limit bytes of the PR's unified diff. complete is false
// when the diff was longer; the rest is never downloaded into memory.
//
// GitHub answers 406 for diffs it will not render (over 300 files or 20,000
// lines); the diff is then rebuilt from the per-file patches of the files
// endpoint, which has no such limit.
func (c *Client) Diff(ctx context.Context, repo Repo, number int, limit int64) (diff []byte, complete bool, err error) {
	return c.ReadDiff(ctx, repo, number, limit, nil)
}

// ReadDiff is Diff that also streams the whole diff through scan, in the
// same request: scan reads every byte of it (every page of the files
// endpoint after a 406) while the first limit bytes are kept, so the
// secret scan covers what the models are not shown without the diff ever
// being held whole (docs/architecture.md, The secret scan). A nil scan
// reads only what is kept.
func (c *Client) ReadDiff(ctx context.Context, repo Repo, number int, limit int64, scan func(io.Reader) error) (diff []byte, complete bool, err error) {
	what := fmt.Sprintf("the diff of PR #%d", number)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.restURL(fmt.Sprintf("repos/%s/%s/pulls/%d", repo.Owner, repo.Name, number)), nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Accept", "application/vnd.github.v3.diff")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, false, c.explain(err, what, repo)
	}
	defer resp.Body.Close()
	var body io.Reader = resp.Body
	var pages *filesReader
	switch {
	case resp.StatusCode == http.StatusNotAcceptable:
		pages = &filesReader{c: c, ctx: ctx, repo: repo, number: number}
		body = pages
	case resp.StatusCode != http.StatusOK:
		return nil, false, c.explain(api.HandleHTTPError(resp), what, repo)
	}
	if scan == nil {
		diff, complete, err = readLimited(body, limit, what)
	} else {
		diff, complete, err = scanAll(body, limit, what, scan)
	}
	if pages != nil {
		if pages.err != nil {
			return nil, false, pages.err
		}
		complete = complete && !pages.more
		return diff, complete, err
	}
	if err == nil && len(diff) > 0 && !bytes.HasPrefix(diff, []byte("diff ")) {
		// An error page from a proxy, say: reviewing it would waste every
		// model call of the round.
		return nil, false, fmt.Errorf("GitHub's answer for %s in %s is not a diff (it starts %q): try again later; if it persists, check GH_HOST and any proxy in between", what, repo, diff[:min(len(diff), 40)])
	}
	return diff, complete, err
}

// ScanDiff reads a diff from r as ReadDiff reads GitHub's: all of it
// through scan (nil: only what is kept), its first limit bytes kept;
// complete is false when it was longer.
func ScanDiff(r io.Reader, limit int64, scan func(io.Reader) error) (diff []byte, complete bool, err error) {
	if scan == nil {
		return readLimited(r, limit, "the diff")
	}
	return scanAll(r, limit, "the diff", scan)
}

// scanAll gives all of r to scan and keeps its first limit bytes.
func scanAll(r io.Reader, limit int64, what string, scan func(io.Reader) error) ([]byte, bool, error) {
	head := &headBuffer{limit: limit}
	tee := io.TeeReader(r, head)
	if err := scan(tee); err != nil {
		return nil, false, err
	}
	// What scan left unread still counts toward the head.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", what, err)
	}
	return head.b, !head.over, nil
}

// headBuffer keeps the first limit bytes written to it.
type headBuffer struct {
	b     []byte
	limit int64
	over  bool
}

func (h *headBuffer) Write(p []byte) (int, error) {
	room := h.limit - int64(len(h.b))
	if int64(len(p)) > room {
		h.over = true
		h.b = append(h.b, p[:max(room, 0)]...)
	} else {
		h.b = append(h.b, p...)
	}
	return len(p), nil
}

func readLimited(r io.Reader, limit int64, what string) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", what, err)
	}
	if int64(len(b)) > limit {
		return b[:limit], false, nil
	}
	return b, true, nil
}

// FilePatch is one file of a PR as the REST files endpoint gives it; Patch
// is empty for binary or very large files.
type FilePatch struct {
	Filename         string `json:"filename"`
	PreviousFilename string `json:"previous_filename"`
	Status           string `json:"status"`
	Patch            string `json:"patch"`
}

// FilesPerPage and MaxFilePages cover GitHub's cap of 3,000 files per PR.
const (
	FilesPerPage = 100
	MaxFilePages = 30
)

// Unified renders the file's patch as a unified diff section, as git
// would write it: a rename says so, an added or removed file has
// /dev/null on its other side, and a name a line break or quote would
// break is quoted (the diff reader, package diff, reads it back).
func (f FilePatch) Unified() string {
	old := f.Filename
	if f.PreviousFilename != "" {
		old = f.PreviousFilename
	}
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git %s %s\n", quotePath("a/"+old), quotePath("b/"+f.Filename))
	if old != f.Filename {
		fmt.Fprintf(&b, "rename from %s\nrename to %s\n", quotePath(old), quotePath(f.Filename))
	}
	if f.Patch == "" {
		fmt.Fprintf(&b, "(%s; no textual patch: binary or too large)\n", text.OneLine(f.Status))
		return b.String()
	}
	from, to := quotePath("a/"+old), quotePath("b/"+f.Filename)
	switch f.Status {
	case "added":
		from = "/dev/null"
	case "removed":
		to = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n%s\n", from, to, f.Patch)
	return b.String()
}

// quotePath quotes a name that holds a control character, a quote or a
// backslash, as git does (with Go's escapes, which the reader takes).
func quotePath(p string) string {
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '"' || r == '\\' }) {
		return strconv.Quote(p)
	}
	return p
}

// FilesPage reads one page (1-based, 100 files) of the PR's files with
// their patches. A short page is the last.
func (c *Client) FilesPage(ctx context.Context, repo Repo, number, page int) ([]FilePatch, error) {
	var files []FilePatch
	path := fmt.Sprintf("repos/%s/%s/pulls/%d/files?per_page=%d&page=%d", repo.Owner, repo.Name, number, FilesPerPage, page)
	if err := c.rest.DoWithContext(ctx, http.MethodGet, path, nil, &files); err != nil {
		return nil, c.explain(err, fmt.Sprintf("the files of PR #%d", number), repo)
	}
	return files, nil
}

// filesReader is the diff rebuilt from the per-file patches of the files
// endpoint, fetched a page at a time as it is read.
type filesReader struct {
	c      *Client
	ctx    context.Context
	repo   Repo
	number int
	page   int
	buf    bytes.Buffer
	done   bool
	more   bool  // GitHub has files past MaxFilePages
	err    error // a page that could not be read
}

func (r *filesReader) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 && !r.done {
		r.page++
		files, err := r.c.FilesPage(r.ctx, r.repo, r.number, r.page)
		if err != nil {
			r.err, r.done = err, true
			return 0, err
		}
		for _, f := range files {
			r.buf.WriteString(f.Unified())
		}
		if len(files) < FilesPerPage || r.page == MaxFilePages {
			r.done, r.more = true, len(files) == FilesPerPage
		}
	}
	if r.buf.Len() == 0 {
		return 0, io.EOF
	}
	return r.buf.Read(p)
}
