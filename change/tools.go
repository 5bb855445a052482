package change

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/repofs"
)

// Files is the repository view the read-only tools use: a commit's tracked
// files from git (*repofs.Tree) or the API (*APIFiles), or, for pr-fix, its
// checkout limited to tracked files and its own.
type Files interface {
	ReadFile(path string, start, end int) (string, error)
	List(dir string) ([]string, bool, error)
}

// Searcher is a Files that can also search its text.
type Searcher interface {
	Search(pattern, dir string) ([]repofs.Match, bool, error)
}

// RepoTools are read_file, list_files and, when files can search, search,
// shared by every role (docs/architecture.md, The agents).
func RepoTools(files Files) []llm.Tool {
	tools := []llm.Tool{
		{
			Name:        "read_file",
			Description: "Read a file of the repository at the PR's head (tracked files only: git-ignored and untracked files are not readable). Optional start_line and end_line (1-based, inclusive) read a range; long files are cut at 64KB.",
			Schema:      llm.ObjectSchema(`{"path":{"type":"string","description":"path relative to the repository root"},"start_line":{"type":"integer"},"end_line":{"type":"integer"}}`, "path"),
			Parallel:    true,
			Run: func(_ context.Context, raw json.RawMessage) (string, error) {
				var a struct {
					Path      string `json:"path"`
					StartLine int    `json:"start_line"`
					EndLine   int    `json:"end_line"`
				}
				if err := llm.DecodeArgs(raw, &a); err != nil {
					return "", err
				}
				return files.ReadFile(a.Path, a.StartLine, a.EndLine)
			},
		},
		{
			Name:        "list_files",
			Description: "List the tracked files of the repository at the PR's head, or of one directory, recursively (at most 500).",
			Schema:      llm.ObjectSchema(`{"path":{"type":"string","description":"directory relative to the repository root; empty for all"}}`),
			Parallel:    true,
			Run: func(_ context.Context, raw json.RawMessage) (string, error) {
				var a struct {
					Path string `json:"path"`
				}
				if err := llm.DecodeArgs(raw, &a); err != nil {
					return "", err
				}
				list, more, err := files.List(a.Path)
				if err != nil {
					return "", err
				}
				out := strings.Join(list, "\n")
				if more {
					out += fmt.Sprintf("\n[only the first %d files; list a directory to see more]", repofs.MaxListItems)
				}
				if out == "" {
					out = "(no files)"
				}
				return out, nil
			},
		},
	}
	searcher, ok := files.(Searcher)
	if !ok {
		return tools
	}
	return append(tools, llm.Tool{
		Name:        "search",
		Description: "Search the tracked text files of the repository at the PR's head for lines matching an RE2 regular expression; optional path limits it to a directory. At most 100 matches.",
		Schema:      llm.ObjectSchema(`{"pattern":{"type":"string","description":"RE2 regular expression"},"path":{"type":"string"}}`, "pattern"),
		Parallel:    true,
		Run: func(_ context.Context, raw json.RawMessage) (string, error) {
			var a struct {
				Pattern string `json:"pattern"`
				Path    string `json:"path"`
			}
			if err := llm.DecodeArgs(raw, &a); err != nil {
				return "", err
			}
			matches, more, err := searcher.Search(a.Pattern, a.Path)
			if err != nil {
				return "", err
			}
			var b strings.Builder
			for _, m := range matches {
				fmt.Fprintf(&b, "%s:%d: %s\n", m.Path, m.Line, m.Text)
			}
			if more {
				fmt.Fprintf(&b, "[stopped at %d matches; narrow the pattern or the path]\n", repofs.MaxMatches)
			}
			if b.Len() == 0 {
				return "no matches", nil
			}
			return b.String(), nil
		},
	})
}

// PRReader is what pr_diff and issue_view read from GitHub.
type PRReader interface {
	FilesPage(ctx context.Context, repo github.Repo, number, page int) ([]github.FilePatch, error)
	Issue(ctx context.Context, repo github.Repo, number int) (*github.Issue, error)
}

// maxIssueBody bounds what issue_view returns: a task carries issues by
// reference, and an issue's text stays a reference, not a document.
const maxIssueBody = 8 << 10

// PRTools are pr_diff and issue_view (reviewers and review-pr) over a
// PR on GitHub.
func PRTools(gh PRReader, repo github.Repo, number int) []llm.Tool {
	return []llm.Tool{
		DiffTool(func(ctx context.Context, page int) ([]github.FilePatch, error) {
			return gh.FilesPage(ctx, repo, number, page)
		}),
		issueTool(gh, repo),
	}
}

// DiffTool is pr_diff over a change's file patches, page (from 1) by page
// of github.FilesPerPage as GitHub lists a PR's files: a PR's or a local
// change's (docs/architecture.md, Local review). Pages are read once,
// lazily, and shared by all calls.
func DiffTool(pages func(ctx context.Context, page int) ([]github.FilePatch, error)) llm.Tool {
	var (
		mu   sync.Mutex
		read [][]github.FilePatch
		done bool
	)
	findFile := func(ctx context.Context, path string) (*github.FilePatch, error) {
		mu.Lock()
		defer mu.Unlock()
		for page := 1; ; page++ {
			if page > len(read) {
				if done || page > github.MaxFilePages {
					return nil, fmt.Errorf("%s is not among the files this PR changes; list_files and read_file show the rest of the repository", path)
				}
				p, err := pages(ctx, page)
				if err != nil {
					return nil, err
				}
				read = append(read, p)
				done = len(p) < github.FilesPerPage
			}
			for i := range read[page-1] {
				if f := &read[page-1][i]; f.Filename == path || f.PreviousFilename == path {
					return f, nil
				}
			}
		}
	}
	return llm.Tool{
		Name:        "pr_diff",
		Description: "The diff of one file changed by the PR.",
		Schema:      llm.ObjectSchema(`{"path":{"type":"string","description":"path of a changed file"}}`, "path"),
		Parallel:    true,
		Run: func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a struct {
				Path string `json:"path"`
			}
			if err := llm.DecodeArgs(raw, &a); err != nil {
				return "", err
			}
			f, err := findFile(ctx, strings.TrimPrefix(a.Path, "./"))
			if err != nil {
				return "", err
			}
			return f.Unified(), nil
		},
	}
}

// issueTool is issue_view: an issue or PR of the repository on GitHub.
func issueTool(gh PRReader, repo github.Repo) llm.Tool {
	return llm.Tool{
		Name:        "issue_view",
		Description: "Title, state, URL and body (cut at 8KB) of an issue or PR of this repository.",
		Schema:      llm.ObjectSchema(`{"number":{"type":"integer"}}`, "number"),
		Parallel:    true,
		Run: func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a struct {
				Number int `json:"number"`
			}
			if err := llm.DecodeArgs(raw, &a); err != nil {
				return "", err
			}
			if a.Number <= 0 {
				return "", errors.New("number must be a positive issue number")
			}
			is, err := gh.Issue(ctx, repo, a.Number)
			if err != nil {
				return "", err
			}
			body := is.Body
			if len(body) > maxIssueBody {
				body = strings.ToValidUTF8(body[:maxIssueBody], "") + "\n[body cut at 8KB]"
			}
			return fmt.Sprintf("#%d: %s (%s)\n%s\n\n%s", is.Number, is.Title, is.State, is.URL, body), nil
		},
	}
}
