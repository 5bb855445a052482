package change

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/repofs"
)

// TreeReader reads a commit's files through the GitHub API.
type TreeReader interface {
	Tree(ctx context.Context, repo github.Repo, commit string) ([]string, bool, error)
	Contents(ctx context.Context, repo github.Repo, path, commit string, limit int64) ([]byte, error)
}

// APIFiles serves read_file and list_files from the API at one commit, for
// a review run outside a checkout of the PR's head. It has no search: that
// would read every file over the network.
type APIFiles struct {
	ctx    context.Context
	gh     TreeReader
	repo   github.Repo
	commit string

	once      sync.Once
	paths     []string
	truncated bool
	err       error
}

// NewAPIFiles reads repo at commit; ctx bounds every request.
func NewAPIFiles(ctx context.Context, gh TreeReader, repo github.Repo, commit string) *APIFiles {
	return &APIFiles{ctx: ctx, gh: gh, repo: repo, commit: commit}
}

// maxAPIFile is the largest file read through the API (read_file shows at
// most repofs.MaxReadBytes of it anyway, from the range asked for).
const maxAPIFile = 4 << 20

// ReadFile reads lines of a file at the commit.
func (f *APIFiles) ReadFile(p string, start, end int) (string, error) {
	c, err := repofs.Clean(p)
	if err != nil {
		return "", err
	}
	b, err := f.gh.Contents(f.ctx, f.repo, c, f.commit, maxAPIFile)
	if err != nil {
		return "", err
	}
	return repofs.Lines(p, b, start, end)
}

// List lists the files below dir at the commit.
func (f *APIFiles) List(dir string) ([]string, bool, error) {
	c, err := repofs.Clean(dir)
	if err != nil {
		return nil, false, err
	}
	f.once.Do(func() {
		f.paths, f.truncated, f.err = f.gh.Tree(f.ctx, f.repo, f.commit)
		sort.Strings(f.paths)
	})
	if f.err != nil {
		return nil, false, f.err
	}
	var out []string
	for _, p := range f.paths {
		if c != "." && p != c && !strings.HasPrefix(p, c+"/") {
			continue
		}
		if p == ".git" || strings.HasPrefix(p, ".git/") {
			continue
		}
		if len(out) == repofs.MaxListItems {
			return out, true, nil
		}
		out = append(out, p)
	}
	if len(out) == 0 && c != "." {
		return nil, false, fmt.Errorf("%s: no such directory at %s", dir, text.ShortOID(f.commit))
	}
	return out, f.truncated, nil
}
