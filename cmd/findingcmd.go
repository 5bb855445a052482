package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/posts"
)

// dismiss and restore post a /ocdx command naming finding IDs on a pull
// request, once the token's user is known to be one the loop will heed:
// the same arguments, the same PR lookup and the same permission check.

// findingIDs splits a verb's arguments into an optional pull request and
// the finding IDs that follow it (each once). A first argument that is not
// an ID is the pull request, unless idsOnly.
func findingIDs(fs *flagSet, rest []string, idsOnly bool, what, example string) (prText string, ids []string, err error) {
	if len(rest) > 0 && !posts.ValidLedgerID(rest[0]) && !idsOnly {
		prText, rest = rest[0], rest[1:]
	}
	if len(rest) == 0 {
		return "", nil, fs.usageErr("name the %s by their IDs, as the reports show them (%s)", what, example)
	}
	for _, id := range rest {
		if !posts.ValidLedgerID(id) {
			return "", nil, fs.usageErr("%q is not a finding ID: IDs look like %s, as the reports show them", id, example)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return prText, ids, nil
}

// target is the pull request a command is for, with the trust that
// judges it and the base branch's policy (nil when it cannot be read:
// then only the viewer's posts and write permission count).
type target struct {
	client *github.Client
	repo   github.Repo
	pr     *github.PullRequest
	trust  *posts.Trust
	policy *config.Policy
}

// commandPR is the target of a command given opts: the PR numbered, or the
// open one of the branch.
func commandPR(ctx context.Context, d *Deps, opts prArgs, usage string) (target, error) {
	repo, client, err := repoClient(d, opts.Repo)
	if err != nil {
		return target{}, err
	}
	number := opts.PR
	if number == 0 {
		if number, err = openPRNumber(ctx, d, client, repo, opts.Branch, "Usage: "+usage); err != nil {
			return target{}, err
		}
	}
	pr, err := client.PullRequest(ctx, repo, number)
	if err != nil {
		return target{}, err
	}
	policy, _, perr := basePolicy(pr)
	if perr != nil {
		policy = nil
	}
	return target{client, repo, pr, posts.NewTrust(client, repo, policy.Trusted()), policy}, nil
}

// prArgs are a verb's pull request arguments.
type prArgs struct {
	Repo   repository.Repository
	PR     int
	Branch string
}

// findingCommand is a /ocdx command on findings.
type findingCommand struct {
	verb string // "dismiss": the comment starts "/ocdx dismiss"
	// may is the loop's rule for who the command counts from.
	may func(repo github.Repo, perm github.Permission, login, prAuthor, id string) (bool, string)
	// says is the line the comment adds for people.
	says string
	// done starts the output's line, after says what the command does
	// from now on.
	done, after string
}

// post posts c for ids on pr, unless the token's user is one the loop
// would not heed for any of them: then nothing is posted.
func (c findingCommand) post(ctx context.Context, d *Deps, client *github.Client, repo github.Repo, pr *github.PullRequest, trust *posts.Trust, ids []string, reason string) error {
	// The command is judged as the loop will judge it: by the permission
	// of the token's user, gh-ocdx's own login included.
	perm, err := trust.Permission(ctx, pr.Viewer)
	if err != nil {
		return fmt.Errorf("could not check whether %s may %s findings on %s: %w; nothing was posted", pr.Viewer, c.verb, repo, err)
	}
	var refused []string
	for _, id := range ids {
		if ok, why := c.may(repo, perm, pr.Viewer, pr.Author, id); !ok {
			refused = append(refused, fmt.Sprintf("%s: %s", id, why))
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("%s may not %s on PR #%d, so nothing was posted (gh-ocdx would not count it):\n  %s",
			pr.Viewer, c.verb, pr.Number, strings.Join(refused, "\n  "))
	}
	body := posts.CommandLine(c.verb, ids, reason) + "\n\n" + c.says + "\n\n" + posts.Marker
	posted, err := client.PostComment(ctx, repo, pr.Number, body)
	if err != nil {
		return fmt.Errorf("posting the %s on PR #%d failed: %w; run the same command again: an ID already on the PR is not posted twice", c.verb, pr.Number, err)
	}
	// As gh says what it did: the mark and the fact on stderr, the link on
	// stdout for a script.
	d.success("%s on %s#%d: %s%s", c.done, repo, pr.Number, strings.Join(ids, ", "), c.after)
	fmt.Fprintln(d.IO.Out, posted.URL)
	return nil
}

// unraised are those of ids no review on pr raised for verb to act on, by
// gh-ocdx's latest trusted report (its ledger): for a dismissal, a finding
// it lists whatever its status, or a review thread's; for a restore, one
// the verifier refuted. Nothing is posted, or answered as done, for them.
// A PR with no trusted ledger yet has raised none but its review threads;
// a ledger that left closed findings out to fit in a comment cannot say,
// and then none is.
func unraised(ctx context.Context, trust *posts.Trust, pr *github.PullRequest, verb string, ids []string) []string {
	led, _, _, ok := trust.Ledger(ctx, pr)
	if ok && led.Dropped > 0 {
		// The ledger left findings out to keep within its size: it cannot
		// say which were never raised.
		return nil
	}
	var known []string
	switch verb {
	case "restore":
		known = led.With(finding.StatusRefuted)
	default:
		for _, e := range led.Findings {
			known = append(known, e.ID)
		}
		threads, _ := consensus.ThreadFindings(pr, trust.Resolution(ctx, pr))
		for _, f := range threads {
			known = append(known, f.ID)
		}
	}
	var not []string
	for _, id := range ids {
		if !slices.Contains(known, id) {
			not = append(not, id)
		}
	}
	return not
}

// notYet are the ids not in already; when none is left, the output says
// so and nothing is posted.
func notYet(d *Deps, ids, already []string, what string, pr int) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(already, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		d.warn("Already %s on PR #%d: %s; nothing posted", what, pr, strings.Join(ids, ", "))
	}
	return out
}
