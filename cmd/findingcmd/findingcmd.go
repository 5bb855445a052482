// Package findingcmd holds the verbs on a PR's findings, dismiss and
// restore: they post a /ocdx command naming finding IDs on a pull
// request, once the token's user is known to be one the loop will heed:
// the same arguments, the same PR lookup and the same permission check.
package findingcmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/converse"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/posts"
)

// findingIDs splits a verb's arguments into an optional pull request and
// the finding IDs that follow it (each once). A first argument that is not
// an ID is the pull request, unless idsOnly.
func findingIDs(fs *cmdutil.FlagSet, rest []string, idsOnly bool, what, example string) (prText string, ids []string, err error) {
	if len(rest) > 0 && !posts.ValidLedgerID(rest[0]) && !idsOnly {
		prText, rest = rest[0], rest[1:]
	}
	if len(rest) == 0 {
		return "", nil, fs.UsageErr("name the %s by their IDs, as the reports show them (%s)", what, example)
	}
	for _, id := range rest {
		if !posts.ValidLedgerID(id) {
			return "", nil, fs.UsageErr("%q is not a finding ID: IDs look like %s, as the reports show them", id, example)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return prText, ids, nil
}

// findingCommand is a /ocdx command on findings, and what the output
// says once it is posted.
type findingCommand struct {
	converse.FindingCommand
	// done starts the output's line, after says what the command does
	// from now on.
	done, after string
}

// post posts c for ids on pr (converse.FindingCommand.Post) and says so.
func (c findingCommand) post(ctx context.Context, d *cmdutil.Deps, client *github.Client, repo github.Repo, pr *github.PullRequest, trust *posts.Trust, ids []string, reason string) error {
	url, err := c.Post(ctx, client, trust, repo, pr, ids, reason)
	if err != nil {
		return err
	}
	// As gh says what it did: the mark and the fact on stderr, the link on
	// stdout for a script.
	d.Success("%s on %s#%d: %s%s", c.done, repo, pr.Number, strings.Join(ids, ", "), c.after)
	fmt.Fprintln(d.IO.Out, url)
	return nil
}

// notYet are the ids not in already; when none is left, the output says
// so and nothing is posted.
func notYet(d *cmdutil.Deps, ids, already []string, what string, pr int) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(already, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		d.Warn("Already %s on PR #%d: %s; nothing posted", what, pr, strings.Join(ids, ", "))
	}
	return out
}
