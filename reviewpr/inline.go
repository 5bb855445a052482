package reviewpr

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
)

// commentsSchema is submit_review's optional inline comments.
const commentsSchema = `"comments":{"type":"array","description":"optional comments on lines of the PR's diff","items":{"type":"object","properties":{` +
	`"path":{"type":"string"},"line":{"type":"integer","description":"a line of the diff (the last of a range)"},` +
	`"start_line":{"type":"integer","description":"the first line of a range"},"side":{"type":"string","enum":["RIGHT","LEFT"],"description":"RIGHT (default): the PR's version; LEFT: removed lines"},` +
	`"body":{"type":"string"},"suggestion":{"type":"string","description":"the exact new text of the lines, committable by the author"}},"required":["path","line","body"]}}`

// inlineComment is one of submit_review's comments, as the model gave it.
type inlineComment struct {
	Path       string  `json:"path"`
	Line       int     `json:"line"`
	StartLine  int     `json:"start_line"`
	Side       string  `json:"side"`
	Body       string  `json:"body"`
	Suggestion *string `json:"suggestion"`
}

// anchored checks the model's comments against the PR's whole diff, as
// GitHub would (docs/architecture.md, Posting), and sanitises them. A comment off
// the diff is returned to the model to move before the person is asked,
// and the person is told.
func (s *Session) anchored(ctx context.Context, in []inlineComment) ([]github.ReviewComment, error) {
	if len(in) == 0 {
		return nil, nil
	}
	var out []github.ReviewComment
	var bad, marked, told []string
	for i, c := range in {
		side := strings.ToUpper(strings.TrimSpace(c.Side))
		if side == "" {
			side = diff.Right
		}
		start := c.StartLine
		if start >= c.Line {
			start = 0
		}
		rc := github.ReviewComment{Path: c.Path, Line: c.Line, StartLine: start, Side: side}
		at := text.Clip(text.OneLine(At(rc)), 120) // the model's path, shown to the person
		if !s.diff().on(rc) {
			bad = append(bad, fmt.Sprintf("comment %d (%s:%d, %s)", i+1, c.Path, c.Line, side))
			told = append(told, fmt.Sprintf("comment %d, on %s, is not on a line of the PR's diff, where GitHub refuses comments", i+1, at))
			continue
		}
		if c.Suggestion != nil && posts.CarriesMarkup(*c.Suggestion) {
			// Posted as written, it could pass for gh-ocdx's own markup.
			marked = append(marked, fmt.Sprintf("comment %d (%s:%d)", i+1, c.Path, c.Line))
			told = append(told, fmt.Sprintf("comment %d, on %s, suggests text holding an HTML comment, a gh-ocdx tag or an /ocdx line", i+1, at))
			continue
		}
		if strings.TrimSpace(c.Body) == "" && c.Suggestion == nil {
			bad = append(bad, fmt.Sprintf("comment %d (%s:%d) has no body", i+1, c.Path, c.Line))
			told = append(told, fmt.Sprintf("comment %d, on %s, has no text", i+1, at))
			continue
		}
		// The model's words cannot carry a suggestion or a hidden tag;
		// its suggestion field, on lines checked above and free of
		// markup, is the one suggestion, rendered by gh-ocdx.
		body := text.InertMarkup(strings.TrimSpace(c.Body))
		if c.Suggestion != nil && side == diff.Right {
			body += "\n\n" + finding.SuggestionBlock(*c.Suggestion)
		}
		rc.Body = redact.ForComment(strings.TrimSpace(body))
		out = append(out, rc)
	}
	if len(marked) > 0 {
		s.Confirmer.SentBack(ctx, told)
		return nil, errors.New("a suggestion holds an HTML comment, a gh-ocdx tag or an /ocdx line: " + strings.Join(marked, "; ") +
			". Suggest only the lines' new code, without \"<!--\", \"ocdx:\" or a line starting with /ocdx, and call submit_review again")
	}
	if len(bad) > 0 {
		s.Confirmer.SentBack(ctx, told)
		return nil, errors.New("not on a line of the PR's diff in the task, where GitHub refuses comments: " + strings.Join(bad, "; ") +
			". Move each to a changed or context line of its file's hunks (line in the PR's version, side RIGHT; LEFT for removed lines), or put it in the body, and call submit_review again")
	}
	return out, nil
}

// diff is the PR's whole diff, read once: GitHub takes a comment on any of
// its lines, though the task may show only part of it (a re-review's diff
// since, a diff cut at change.DiffLimit), and a re-review's diff since
// numbers its left side by a head, not the base. A context built without
// it has only the task's diff.
func (s *Session) diff() *Diff {
	s.diffOnce.Do(func() {
		if s.Context.PRDiff != nil {
			s.parsed = NewDiff(string(s.Context.PRDiff))
		} else {
			s.parsed = NewDiff(s.Context.Diff)
		}
	})
	return s.parsed
}
