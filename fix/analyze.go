package fix

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/verify"
)

// analyze runs the analyzers on the verified tree, after the verify
// commands (docs/architecture.md, Evidence): a tool's finding the agent
// says it fixed that its tool still reports where the fix moved its line
// fails the verification like a command, and the agent is told which. The
// report is kept for the tree, so the next round has it as evidence.
func (f *fixer) analyze(ctx context.Context) (verify.Result, bool) {
	tree, err := f.repo.Run(ctx, "rev-parse", "HEAD^{tree}")
	if err != nil {
		return verify.Result{}, false
	}
	rep := f.o.Analyzers.Run(ctx, tree)
	for _, p := range rep.Problems {
		fmt.Fprintf(f.o.Progress, "! %s\n", p)
	}
	var files []*diff.File
	if d, err := f.repo.Diff(ctx, f.base, "HEAD"); err == nil {
		files, _ = diff.Parse(d)
	}
	for _, t := range f.o.Payload.IssuesToFix {
		if !evidence.Own(t) || t.Line == nil || !slices.ContainsFunc(f.out.Fixed, func(x finding.FixedIssue) bool { return x.FindingID == t.ID }) {
			continue
		}
		file, line, _ := diff.Follow(files, t.File, *t.Line)
		if file == "" {
			continue // the fix removed the file
		}
		if r, still := evidence.StillReported(t, file, line, rep.Sets); still {
			tail := fmt.Sprintf("%s still reports %s at %s:%d after the fix (%s), which %s was about: fix it there, or reject %s with your reason",
				r.Tool, cmp.Or(r.Rule, "it"), r.File, r.Line, r.Message, t.ID, t.ID)
			return verify.Result{Command: "analyzer " + r.Tool + " (" + t.ID + ")", ExitCode: 1, Tail: tail}, true
		}
	}
	return verify.Result{}, false
}
