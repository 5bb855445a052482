package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/cli/go-gh/v2/pkg/api"
)

// Diff reads at most limit bytes of the PR's unified diff. complete is false
// when the diff was longer; the rest is never downloaded into memory.
//
// GitHub answers 406 for diffs it will not render (over 300 files or 20,000
// lines); the diff is then rebuilt from the per-file patches of the files
// endpoint, which has no such limit.
func (c *Client) Diff(ctx context.Context, repo Repo, number int, limit int64) (diff []byte, complete bool, err error) {
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
	switch {
	case resp.StatusCode == http.StatusNotAcceptable:
		return c.diffFromFiles(ctx, repo, number, limit)
	case resp.StatusCode != http.StatusOK:
		return nil, false, c.explain(api.HandleHTTPError(resp), what, repo)
	}
	diff, complete, err = readLimited(resp.Body, limit, what)
	if err == nil && len(diff) > 0 && !bytes.HasPrefix(diff, []byte("diff ")) {
		// An error page from a proxy, say: reviewing it would waste every
		// model call of the round.
		return nil, false, fmt.Errorf("GitHub's answer for %s in %s is not a diff (it starts %q): try again later; if it persists, check GH_HOST and any proxy in between", what, repo, diff[:min(len(diff), 40)])
	}
	return diff, complete, err
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

// Unified renders the file's patch as a unified diff section.
func (f FilePatch) Unified() string {
	old := f.Filename
	if f.PreviousFilename != "" {
		old = f.PreviousFilename
	}
	if f.Patch == "" {
		return fmt.Sprintf("diff --git a/%s b/%s\n(%s; no textual patch: binary or too large)\n", old, f.Filename, f.Status)
	}
	return fmt.Sprintf("diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n%s\n", old, f.Filename, old, f.Filename, f.Patch)
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

// diffFromFiles rebuilds a unified diff from per-file patches, page by page,
// until limit bytes are gathered.
func (c *Client) diffFromFiles(ctx context.Context, repo Repo, number int, limit int64) ([]byte, bool, error) {
	var buf bytes.Buffer
	for page := 1; page <= MaxFilePages; page++ {
		files, err := c.FilesPage(ctx, repo, number, page)
		if err != nil {
			return nil, false, err
		}
		for _, f := range files {
			buf.WriteString(f.Unified())
			if int64(buf.Len()) > limit {
				return buf.Bytes()[:limit], false, nil
			}
		}
		if len(files) < FilesPerPage {
			return buf.Bytes(), true, nil
		}
	}
	return buf.Bytes(), false, nil
}
