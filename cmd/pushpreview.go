package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// pushPreview is what the person reads before a push question: the
// commits, then git's diffstat under them, both indented alike. git
// indents each stat line by one space and the runner trims the first: each
// line loses its own, so that the columns (" | 3 ++-") line up again.
func pushPreview(title string, commits []string, stat string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s:\n", title)
	for _, c := range commits {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	if stat = strings.Trim(stat, "\n"); stat != "" {
		b.WriteString("\n")
		for _, l := range strings.Split(stat, "\n") {
			fmt.Fprintf(&b, "  %s\n", strings.TrimPrefix(l, " "))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// confirmPush shows what a push sends and asks before it: the question of
// review-loop and fix. Ctrl-C at the question keeps the commits local, as
// "no" does: the run stays resumable, not failed.
func confirmPush(d *cmdutil.Deps, p cmdutil.Prompter) func(context.Context, fix.PushPlan) (bool, error) {
	return func(_ context.Context, plan fix.PushPlan) (bool, error) {
		fmt.Fprint(d.IO.ErrOut, pushPreview(fmt.Sprintf("Commits to push to %s/%s", plan.Remote, plan.Branch), plan.Commits, plan.Diffstat))
		ok, err := p.Confirm(fmt.Sprintf("Push %s to %s/%s?", text.Plural(len(plan.Commits), "commit"), plan.Remote, plan.Branch), false)
		if errors.Is(err, cmdutil.ErrCancelled) {
			return false, nil
		}
		return ok, err
	}
}
