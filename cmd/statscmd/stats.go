package statscmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/stats"
)

// Options are the parsed arguments of stats.
type Options struct {
	ReadOptions // Export nil: Markdown
}

// ReadOptions are what stats and learn read: whose pull requests, how many,
// since when, and how the answer is printed.
type ReadOptions struct {
	Repo   repository.Repository
	Limit  int               // the most pull requests read
	Since  time.Time         // zero: any
	Export *cmdutil.Exporter // --json, --jq, --template
}

const statsUsage = "gh ocdx stats [-R OWNER/REPO] [--limit N] [--since DATE] [--json [fields]] [--jq EXPR | --template T]"

const statsHelp = `Count how gh-ocdx's findings ended on a repository's recent pull
requests, and what each reviewer model is worth there: per model, the
findings it raised and how they ended (fixed, resolved, dismissed,
refuted, disputed, stuck, open), the share accepted (fixed, or resolved
after a change) of those decided, the accepted findings no other reviewer
raised (what the model adds), its tokens and estimated cost (the prices of
your configuration); the same per priority and category; and per
repository the pull requests reviewed, rounds and time to converge, and
cost per pull request. It then says what it would change, with the
numbers behind it, once they are enough to say anything.

It reads the ledgers of gh-ocdx's own reports (its login's, a login the
base branch's .ocdx.json lists in trustedLogins, or someone's with write
permission; a report someone else edited is theirs), the most recently
updated pull requests first, one request per page of 25. What it read is
kept in the state file: the next run asks GitHub only for the pull
requests updated since. Ledgers of gh-ocdx before version 3 name no
reviewer: their findings count in the totals only, and stats says so.

Examples:
  gh ocdx stats
  gh ocdx stats -R cli/cli --limit 500
  gh ocdx stats --since 2026-01-01
  gh ocdx stats --json models --jq '.models[] | "\(.model) \(.acceptedShare)"'`

// defaultStatsLimit is how many pull requests stats reads when not told.
const defaultStatsLimit = 100

// Parse reads stats' arguments.
func Parse(d *cmdutil.Deps, args []string) (*Options, error) {
	opts := &Options{}
	fs := cmdutil.NewFlagSet("stats", statsUsage, statsHelp)
	if err := ParseRead(d, fs, args, stats.Report{}, nil, &opts.ReadOptions); err != nil {
		return nil, err
	}
	return opts, nil
}

// ParseRead parses a reading verb's flags into o: -R, --limit and --since,
// then the verb's own (more, when not nil), then --json for shape.
func ParseRead(d *cmdutil.Deps, fs *cmdutil.FlagSet, args []string, shape any, more func(*cmdutil.FlagSet), o *ReadOptions) error {
	var rf readFlags
	rf.add(fs)
	if more != nil {
		more(fs)
	}
	jf := cmdutil.AddJSONFlags(fs, shape)
	if err := fs.ParseArgs(d, jf.Args(args), 0); err != nil {
		return err
	}
	var err error
	if o.Export, err = jf.Exporter(fs); err != nil {
		return err
	}
	o.Repo, o.Limit, o.Since, err = rf.values(fs)
	return err
}

// ReadReviewed reads the pull requests of r (the current repository when
// none) as stats reads them, through the state file's cache, and says
// what it could not take from them: stats' and learn's one way to read.
func ReadReviewed(ctx context.Context, d *cmdutil.Deps, r repository.Repository, limit int, since time.Time) (github.Repo, *github.Client, stats.Result, error) {
	repo, client, err := cmdutil.RepoClient(d, r)
	if err != nil {
		return repo, nil, stats.Result{}, err
	}
	st, err := d.OpenStore()
	if err != nil {
		return repo, nil, stats.Result{}, err
	}
	res, err := stats.Read(ctx, stats.Options{Repo: repo, GitHub: client, Cache: st, Limit: limit, Since: since})
	for _, w := range res.Warnings {
		d.Warn("%s", w)
	}
	return repo, client, res, err
}

// readFlags are the flags of the verbs that read a repository's pull
// requests as stats does (stats, learn): -R, --limit and --since.
type readFlags struct {
	repo, since string
	limit       int
}

func (rf *readFlags) add(fs *cmdutil.FlagSet) {
	fs.RepoFlag(&rf.repo)
	fs.IntVarP(&rf.limit, "limit", "L", defaultStatsLimit, "Read at most this `number` of pull requests, the most recently updated first")
	fs.StringVar(&rf.since, "since", "", "Read only pull requests updated since this `date` (2026-01-31, or an RFC 3339 time)")
}

// values are the flags' values once fs is parsed, checked.
func (rf *readFlags) values(fs *cmdutil.FlagSet) (repo repository.Repository, limit int, since time.Time, err error) {
	if rf.limit <= 0 {
		return repo, 0, since, fs.UsageErr("invalid --limit %d: give how many pull requests to read, above zero", rf.limit)
	}
	if rf.since != "" {
		if since, err = parseSince(rf.since); err != nil {
			return repo, 0, since, fs.UsageErr("invalid --since %q: give a date (2026-01-31) or an RFC 3339 time (2026-01-31T12:00:00Z)", rf.since)
		}
	}
	repo, err = fs.ParseRepoFlag(rf.repo)
	return repo, rf.limit, since, err
}

// parseSince reads --since: a date (midnight UTC) or an RFC 3339 time.
func parseSince(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

// Run counts how the findings of the pull requests opts reads ended.
func Run(ctx context.Context, d *cmdutil.Deps, opts *Options) error {
	// The prices are the configuration's; without one, stats counts
	// tokens and says no cost.
	var prices map[string]config.Price
	cfg, err := config.LoadFor(d.Getenv, func(string) bool { return false })
	switch {
	case err == nil:
		prices = cfg.Prices
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	repo, _, res, err := ReadReviewed(ctx, d, opts.Repo, opts.Limit, opts.Since)
	if err != nil {
		return err
	}
	cached := ""
	if res.Cached > 0 {
		cached = fmt.Sprintf(" (%d as the state file kept them: not updated since)", res.Cached)
	}
	d.Info("Read %s of %s in %s%s", text.Plural(len(res.PRs), "pull request"), repo, text.Plural(res.Pages, "request"), cached)
	report := stats.Tally(repo.String(), res.PRs, prices)
	if opts.Export != nil {
		return opts.Export.Write(d, report)
	}
	return cmdutil.PrintMarkdown(d, report.Markdown())
}
