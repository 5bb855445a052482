package change

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/glob"
	"github.com/ocdx/gh-ocdx/learnings"
)

// DiffReadLimit bounds the diff read for a round: ignored files' diffs do
// not count toward DiffLimit, so more than it is read, and what is left
// after them is cut at DiffLimit.
const DiffReadLimit = 1 << 20

// MaxInstructions caps the repository instructions given to a model (the
// file's "instructions", REVIEW.md and the matching path rules together):
// a long guide would crowd out the diff.
const MaxInstructions = 8 << 10

// InstructionsCutNotice ends instructions cut at MaxInstructions.
const InstructionsCutNotice = "\n[repository instructions cut at 8KB]"

// NewContext is the context of a review of pr over its diff (ContextOf).
func NewContext(pr *github.PullRequest, d []byte, complete bool, p *config.Policy) *Context {
	c := ContextOf(OfPR(pr), d, complete, p)
	c.PR = pr
	return c
}

// ContextOf is the context of a review of the change s over its diff
// (complete false: more was not read): the diffs of the files the policy
// ignores are left out, the rest is cut at DiffLimit.
func ContextOf(s Subject, d []byte, complete bool, p *config.Policy) *Context {
	kept, dropped := FilterDiff(d, p.Ignored)
	text, truncated := TruncateDiff(kept, complete)
	ignored := dropped
	for _, f := range s.Files {
		if p.Ignored(f.Path) && !slices.Contains(ignored, f.Path) {
			ignored = append(ignored, f.Path)
		}
	}
	return &Context{Subject: s, Diff: text, DiffTruncated: truncated, Policy: p, Ignored: ignored}
}

// FilterDiff removes from a unified diff the sections of the files ignored
// says to leave out, and names them.
func FilterDiff(d []byte, ignored func(string) bool) (kept []byte, dropped []string) {
	files, _ := diff.Parse(d) // bytes cannot fail to read
	kept = make([]byte, 0, len(d))
	last := int64(0)
	for _, f := range files {
		if !ignored(f.Path()) {
			continue
		}
		kept = append(kept, d[last:f.Start]...)
		last = f.End
		dropped = append(dropped, f.Path())
	}
	return append(kept, d[last:]...), dropped
}

// FileList is the change's files as a task lists them: an ignored
// file is marked, and files beyond those read are counted.
func (c *Context) FileList() []string {
	files := make([]string, 0, len(c.Subject.Files)+1)
	for _, f := range c.Subject.Files {
		if slices.Contains(c.Ignored, f.Path) {
			files = append(files, f.Path+" (ignored: its diff is left out; read it with tools if it matters)")
		} else {
			files = append(files, f.Path)
		}
	}
	if more := c.Subject.ChangedFiles - len(c.Subject.Files); more > 0 {
		files = append(files, fmt.Sprintf("… and %d more files (use list_files or pr_diff)", more))
	}
	return files
}

// Instructions renders the repository's instructions for a task over the
// PR's files: the policy's text, REVIEW.md, and each path rule that some
// file matches, naming those files; "" when there are none. They come from
// the base branch, so they are the repository owner's, not the PR author's
// (docs/architecture.md, Where the repository policy comes from); the model
// client masks secrets in them like in all text it sends.
func Instructions(p *config.Policy, files []github.ChangedFile) string {
	if p == nil {
		return ""
	}
	var parts []string
	if s := strings.TrimSpace(p.Instructions); s != "" {
		parts = append(parts, s)
	}
	if s := strings.TrimSpace(p.Guide); s != "" {
		parts = append(parts, "From "+config.ReviewFile+":\n\n"+s)
	}
	if s := learnings.Instructions(p.Learnings); s != "" {
		parts = append(parts, s)
	}
	for _, r := range p.Paths {
		if strings.TrimSpace(r.Instructions) == "" {
			continue // a rule that only sets the effort tier
		}
		var matched []string
		for _, f := range files {
			if glob.Match(r.Glob, f.Path) {
				matched = append(matched, f.Path)
			}
		}
		if len(matched) == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("For the files matching `%s`%s:\n\n%s", r.Glob, diff.QuoteNames(matched[:min(len(matched), 10)], len(matched)), strings.TrimSpace(r.Instructions)))
	}
	s := strings.Join(parts, "\n\n")
	if len(s) > MaxInstructions {
		cut := MaxInstructions
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + InstructionsCutNotice
	}
	return s
}
