// Package change builds what a review of one change starts from, a pull
// request or a change that is none (a local branch): its description
// (Subject), the context built the same way every time and its task
// message, and the tools the agents read the repository and the change
// with. review-pr's interactive session, which starts from them, is
// package reviewpr.
package change

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/prompts"
)

// DiffLimit caps the diff in a task message (docs/architecture.md, The
// agents): beyond it the model reads the rest through tools.
const DiffLimit = 50 * 1024

// DiffTruncatedNotice ends a diff cut at DiffLimit. It names the tools a
// reviewer has for the rest (read_file, pr_diff): a model told to use a
// tool that does not exist wastes its calls or stops looking.
const DiffTruncatedNotice = "[Diff truncated at 50KB. Use read_file <path> for a file at the PR's head, or pr_diff <path> for one file's diff.]"

// PRSource is what the context needs from GitHub.
type PRSource interface {
	PullRequest(ctx context.Context, repo github.Repo, number int) (*github.PullRequest, error)
	Diff(ctx context.Context, repo github.Repo, number int, limit int64) ([]byte, bool, error)
}

// Context is the deterministic context of a review: fetched in full, or
// not at all.
type Context struct {
	Subject Subject // what the prompts say of the change
	// PR is the pull request itself, for review-pr and describe, which
	// act on it; nil for a change that is none (ContextOf).
	PR            *github.PullRequest
	Diff          string // truncated at DiffLimit, notice included
	DiffTruncated bool
	Policy        *config.Policy // the repository's; nil: the defaults
	Ignored       []string       // the files whose diff the policy left out
	// Since, in a re-review, is the head gh-ocdx reviewed last: Diff is then
	// only what changed since (docs/architecture.md, Re-reviews).
	Since string
	// PRDiff is the PR's whole diff as Gather read it (up to
	// DiffReadLimit), before the policy and the cut: the lines GitHub takes
	// review comments on, whatever part of it the task shows.
	PRDiff []byte
	// Evidence is what the repository's tools report on the lines the PR
	// changes, as a reviewer's task lists it (docs/architecture.md,
	// Evidence); "" for none.
	Evidence string
}

// Gather fetches the PR and its diff (two requests, side by side), then
// applies the repository policy that policyOf finds for the PR. Any failure
// returns an error and no partial context.
func Gather(ctx context.Context, src PRSource, repo github.Repo, number int, policyOf func(*github.PullRequest) (*config.Policy, error)) (*Context, error) {
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
		diff, complete, diffErr = src.Diff(ctx, repo, number, DiffReadLimit)
	}()
	pr, prErr = src.PullRequest(ctx, repo, number)
	wg.Wait()
	if prErr != nil {
		return nil, prErr
	}
	if diffErr != nil {
		return nil, diffErr
	}
	policy, err := policyOf(pr)
	if err != nil {
		return nil, err
	}
	c := NewContext(pr, diff, complete, policy)
	c.PRDiff = diff
	return c, nil
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

// FileSummary is the line a task message puts before the file list.
func (c *Context) FileSummary() string {
	s := c.Subject
	return fmt.Sprintf("%s changed, %s, %s", text.Plural(s.ChangedFiles, "file"), text.Plural(s.Additions, "insertion"), text.Plural(s.Deletions, "deletion"))
}

// TaskMessage renders the review-pr task message: the first user message of
// a review-pr run, and what --context-only prints.
func (c *Context) TaskMessage() (string, error) {
	s := c.Subject
	body := posts.AuthorBody(s.Body) // gh-ocdx's description is not the author's
	if body == "" {
		body = "(no description)"
	}
	return prompts.Render("review_pr.md", map[string]any{
		"Number": s.Number, "Title": s.Title, "Author": s.Author, "State": s.State,
		"Body": body, "LinkedIssues": s.LinkedIssues,
		"FileSummary": c.FileSummary(), "Files": c.FileList(), "Diff": c.Diff, "Since": text.ShortOID(c.Since),
		"Instructions": Instructions(c.Policy, s.Files),
	})
}

// Coverage is what the context's diff holds of the change's files.
func (c *Context) Coverage() diff.Coverage {
	return DiffCoverage(c.Subject, c.Diff, c.DiffTruncated, c.Ignored)
}

// DiffCoverage measures what text (the diff as given to the reviewers,
// truncated or not) holds of s's changed files; ignored are the files
// whose diff the policy left out.
func DiffCoverage(s Subject, text string, truncated bool, ignored []string) diff.Coverage {
	var given, submodules []string
	files, _ := diff.Parse([]byte(text)) // bytes cannot fail to read
	for _, f := range files {
		given = append(given, f.Path())
		if f.IsSubmodule && len(submodules) < diff.MaxCoverageNames {
			submodules = append(submodules, f.Path())
		}
	}
	c := diff.Coverage{Cut: []string{}, LeftOutNames: []string{}, Ignored: len(ignored), Submodules: submodules}
	c.Files = max(s.ChangedFiles, len(s.Files), len(given)+len(ignored))
	c.Whole = len(given)
	if truncated && len(given) > 0 {
		// The diff was cut inside its last file (or just after it: it cannot
		// be told apart, so the file counts as cut).
		c.Whole--
		c.Cut = append(c.Cut, given[len(given)-1])
	}
	c.LeftOut = max(c.Files-len(given)-len(ignored), 0)
	for _, f := range s.Files {
		if len(c.LeftOutNames) < diff.MaxCoverageNames && !slices.Contains(given, f.Path) && !slices.Contains(ignored, f.Path) {
			c.LeftOutNames = append(c.LeftOutNames, f.Path)
		}
	}
	if len(c.LeftOutNames) > c.LeftOut {
		c.LeftOutNames = c.LeftOutNames[:c.LeftOut]
	}
	return c
}
