package cmd

import (
	"context"
	"errors"

	"github.com/ocdx/gh-ocdx/checkrun"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/report"
)

// publishCheck publishes res as the gh-ocdx check run (--check-run). A
// check run is a view of the run, not part of it: a token GitHub refuses,
// or any failure, is one "!" line and the run's outcome and exit code stay
// as they were (docs/architecture.md, The check run).
func publishCheck(ctx context.Context, d *cmdutil.Deps, gh checkrun.GitHub, repo github.Repo, viewer string, res *report.Result, reviewOnly bool) {
	c, ok := checkrun.Of(res, reviewOnly)
	if !ok {
		return
	}
	run, err := checkrun.Publish(ctx, gh, repo, viewer, c)
	var refused *github.ChecksRefusedError
	switch {
	case errors.As(err, &refused):
		d.Warn("no %s check run on %s: %v", checkrun.Name, text.ShortOID(c.Head), err)
	case err != nil:
		d.Warn("the %s check run on %s was not published: %v", checkrun.Name, text.ShortOID(c.Head), err)
	default:
		d.Success("Check run %s on %s: %s %s", checkrun.Name, text.ShortOID(c.Head), c.Conclusion, run.URL)
	}
}
