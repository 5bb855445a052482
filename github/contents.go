package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cli/go-gh/v2/pkg/api"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// Tree lists the file paths of a commit (the git trees API, recursive).
// truncated is GitHub's flag for trees too large to list in one answer.
func (c *Client) Tree(ctx context.Context, repo Repo, commit string) (paths []string, truncated bool, err error) {
	var out struct {
		Tree []struct {
			Path string `json:"path"`
			Type string `json:"type"`
		} `json:"tree"`
		Truncated bool `json:"truncated"`
	}
	err = c.rest.DoWithContext(ctx, http.MethodGet, fmt.Sprintf("repos/%s/%s/git/trees/%s?recursive=1", repo.Owner, repo.Name, url.PathEscape(commit)), nil, &out)
	if err != nil {
		return nil, false, c.explain(err, "the file tree of "+text.ShortOID(commit), repo)
	}
	for _, e := range out.Tree {
		if e.Type == "blob" {
			paths = append(paths, e.Path)
		}
	}
	return paths, out.Truncated, nil
}

// Contents reads at most limit bytes of a file at a commit.
func (c *Client) Contents(ctx context.Context, repo Repo, path, commit string, limit int64) ([]byte, error) {
	what := fmt.Sprintf("%s at %s", path, text.ShortOID(commit))
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := c.restURL(fmt.Sprintf("repos/%s/%s/contents/%s?ref=%s", repo.Owner, repo.Name, strings.Join(segs, "/"), url.QueryEscape(commit)))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.github.raw")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.explain(err, what, repo)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%s does not exist", what)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, c.explain(api.HandleHTTPError(resp), what, repo)
	}
	b, _, err := readLimited(resp.Body, limit, what)
	return b, err
}
