// Package review builds what a review of one pull request starts from: the
// deterministic context of seeds/000 and its task message, the reviewer role,
// and the Finding type with its IDs.
package review

import (
	"context"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/prompts"
)

// DiffLimit caps the diff in a task message (seeds/000).
const DiffLimit = 50 * 1024

// DiffTruncatedNotice ends a diff cut at DiffLimit; its wording is fixed by
// seeds/000.
const DiffTruncatedNotice = "[Diff truncated at 50KB. Use 'read <path>' for specific files.]"

// PRSource is what the context needs from GitHub.
type PRSource interface {
	PullRequest(ctx context.Context, repo github.Repo, number int) (*github.PullRequest, error)
	Diff(ctx context.Context, repo github.Repo, number int, limit int64) ([]byte, bool, error)
}

// Context is the deterministic context of a PR review: fetched in full, or
// not at all.
type Context struct {
	PR            *github.PullRequest
	Diff          string // truncated at DiffLimit, notice included
	DiffTruncated bool
}

// Gather fetches the PR and its diff (two requests, side by side). Any
// failure returns an error and no partial context.
func Gather(ctx context.Context, src PRSource, repo github.Repo, number int) (*Context, error) {
	var (
		wg       sync.WaitGroup
		pr       *github.PullRequest
		diff     []byte
		complete bool
		prErr    error
		diffErr  error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		diff, complete, diffErr = src.Diff(ctx, repo, number, DiffLimit)
	}()
	pr, prErr = src.PullRequest(ctx, repo, number)
	wg.Wait()
	if prErr != nil {
		return nil, prErr
	}
	if diffErr != nil {
		return nil, diffErr
	}
	text, truncated := TruncateDiff(diff, complete)
	return &Context{PR: pr, Diff: text, DiffTruncated: truncated}, nil
}

// TruncateDiff keeps at most DiffLimit bytes of diff, cut at the last line
// break (never inside a UTF-8 sequence), and adds the notice when anything
// was left out. complete=false means the source already held more.
func TruncateDiff(diff []byte, complete bool) (string, bool) {
	if complete && len(diff) <= DiffLimit {
		return string(diff), false
	}
	cut := min(len(diff), DiffLimit)
	for cut > 0 && cut < len(diff) && !utf8.RuneStart(diff[cut]) {
		cut--
	}
	kept := diff[:cut]
	for i := len(kept) - 1; i >= 0; i-- {
		if kept[i] == '\n' {
			kept = kept[:i+1]
			break
		}
	}
	s := string(kept)
	if s != "" && s[len(s)-1] != '\n' {
		s += "\n"
	}
	return s + DiffTruncatedNotice, true
}

// FileSummary is the line seeds/000 puts before the file list.
func (c *Context) FileSummary() string {
	return fmt.Sprintf("%d files changed, %d insertions, %d deletions", c.PR.ChangedFiles, c.PR.Additions, c.PR.Deletions)
}

// TaskMessage renders the seeds/000 task message: the first user message of
// a review-pr run, and what --context-only prints.
func (c *Context) TaskMessage() (string, error) {
	files := make([]string, 0, len(c.PR.Files)+1)
	for _, f := range c.PR.Files {
		files = append(files, f.Path)
	}
	if more := c.PR.ChangedFiles - len(c.PR.Files); more > 0 {
		files = append(files, fmt.Sprintf("… and %d more files (use list_files or pr_diff)", more))
	}
	body := c.PR.Body
	if body == "" {
		body = "(no description)"
	}
	return prompts.Render("review_pr.md", map[string]any{
		"Number": c.PR.Number, "Title": c.PR.Title, "Author": c.PR.Author, "State": c.PR.State,
		"Body": body, "LinkedIssues": c.PR.ClosingIssues,
		"FileSummary": c.FileSummary(), "Files": files, "Diff": c.Diff,
	})
}
