package evalcmd

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/eval"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/jsonout"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/state"
)

// Options are the parsed arguments of eval history.
type Options struct {
	Cases     string    // --cases FILE: the cases to review instead of mining them
	List      bool      // print the cases and stop: no model call
	After     time.Time // zero: any
	Limit     int       // the most bug cases, and clean ones, the newest merged first
	Ref       string    // the branch whose history is mined
	Verifier  string    // --verifier; "": the configuration's verifierModel
	MaxTokens int64     // --max-tokens; 0: the configuration's maxTokens
	// Export is --json, --jq or --template (nil: Markdown): the cases'
	// fields with --list, else the report's.
	Export *cmdutil.Exporter
}

const evalUsage = "gh ocdx eval history [--cases FILE] [--list] [--after DATE] [--limit N] [--ref REF] [--verifier PROVIDER/MODEL] [--max-tokens N] [--json [fields]] [--jq EXPR | --template T]"

const evalHelp = `Measure, on this repository's own history, which reviewer mix would have
caught the bugs its team later fixed, and at what cost. Run it in a
checkout of the repository.

The cases are mined from git alone: commits that fix something (their
message says so, or a revert), the lines they changed traced back with blame
to the merged pull request that wrote them, and as many clean pull requests,
nearest in size, that no fix traced to. --list prints them and stops (no
model is asked); --list --json prints them as JSON, which you may edit (drop
a case, add one) and give back with --cases FILE.

Each configured reviewer model then reviews each pull request once, alone,
as it was: its diff against its own base, its head's files only (from git's
objects: no later commit, nothing else), no GitHub request. The verifier
(verifierModel, or --verifier), when there is one, checks each model's
findings. Every answer is cached under the state directory as it comes: a
run stopped halfway resumes where it stopped, and the figures of every mix
are computed from the cache without another call.

The report gives, for each model alone, each mix of them (k of n agreeing,
with and without the verifier) and the effort tiers standard and auto:
recall of the later-fixed lines with its 95% interval, noise per clean pull
request, tokens and estimated dollars per bug caught, and the number of
cases; it names the rules it used, and recommends a configuration only when
the intervals support it. --after DATE, and modelCutoffs in the
configuration ({"provider/model": "YYYY-MM-DD"}), count only pull requests
merged after a model's training cutoff.

Examples:
  gh ocdx eval history --list
  gh ocdx eval history --list --json > cases.json
  gh ocdx eval history --cases cases.json --max-tokens 2000000
  gh ocdx eval history --after 2025-06-01 --json
  gh ocdx eval history --json recommendation --jq .recommendation`

// defaultEvalLimit bounds the cases reviewed when --limit is not given.
const defaultEvalLimit = 50

// Parse reads eval history's arguments.
func Parse(d *cmdutil.Deps, args []string) (*Options, error) {
	opts := &Options{}
	var after string
	fs := cmdutil.NewFlagSet("eval history", evalUsage, evalHelp)
	fs.StringVar(&opts.Cases, "cases", "", "Review the cases listed in `FILE` (as --list --json prints them) instead of mining them")
	fs.BoolVar(&opts.List, "list", false, "Print the cases and stop: no model is asked")
	fs.StringVar(&after, "after", "", "Count only pull requests merged after this `date` (2025-06-01)")
	fs.IntVarP(&opts.Limit, "limit", "L", defaultEvalLimit, "Review at most this `number` of bug cases, and of clean ones, the most recently merged")
	fs.StringVar(&opts.Ref, "ref", "HEAD", "The branch whose history is mined")
	fs.StringVar(&opts.Verifier, "verifier", "", "Check the findings with `PROVIDER/MODEL` (instead of the configuration's verifierModel)")
	fs.MaxTokensFlag(&opts.MaxTokens, "The most tokens the run may use, every call together (default: the configuration's maxTokens)")
	// The report's fields, or with --list the cases'.
	jf := cmdutil.AddJSONFlags(fs, eval.Report{}, eval.Mined{})
	if err := fs.ParseArgs(d, jf.Args(args), 0); err != nil {
		return nil, err
	}
	var err error
	if opts.Export, err = jf.Exporter(fs); err != nil {
		return nil, err
	}
	if opts.Export != nil {
		fields := jsonout.Fields(eval.Report{})
		if opts.List {
			fields = jsonout.Fields(eval.Mined{})
		}
		if err := opts.Export.Only(fields); err != nil {
			return nil, err
		}
	}
	if opts.Limit <= 0 {
		return nil, fs.UsageErr("invalid --limit %d: give how many cases to review, above zero", opts.Limit)
	}
	if after != "" {
		t, err := time.Parse(time.DateOnly, after)
		if err != nil {
			return nil, fs.UsageErr("invalid --after %q: give a date as 2025-06-01", after)
		}
		opts.After = t
	}
	if fs.Changed("verifier") {
		if _, err := llm.ParseModel(opts.Verifier); err != nil {
			return nil, fs.UsageErr("invalid --verifier: %v", err)
		}
	}
	if strings.HasPrefix(opts.Ref, "-") {
		return nil, fs.UsageErr("invalid --ref %q: give a branch or a commit", opts.Ref)
	}
	return opts, nil
}

// Run scores the reviewer mixes on the history opts names.
func Run(ctx context.Context, d *cmdutil.Deps, opts *Options) error {
	wd, err := d.Dir()
	if err != nil {
		return err
	}
	g, err := git.Open(ctx, wd)
	if err != nil {
		return err
	}
	if opts.List {
		mined, err := evalCases(ctx, d, g, opts)
		if err != nil {
			return err
		}
		return printCases(d, opts, mined) // no model, no configuration needed
	}
	// The configuration is checked before the mining's seconds are spent.
	cfg, err := cmdutil.LoadConfigFor(d, cmdutil.UsesRole("reviewerModels", "verifierModel"))
	if err != nil {
		return err
	}
	if err := cmdutil.VerifierCredential(d, opts.Verifier); err != nil {
		return err
	}
	mined, err := evalCases(ctx, d, g, opts)
	if err != nil {
		return err
	}
	if len(mined.Bugs) == 0 {
		d.Warn("no bug case to measure recall on: no fix in this history traces back to a merged pull request (gh ocdx eval history --list says what was left out)")
		return nil
	}
	models := cmdutil.NewRunModels(d, cfg, opts.MaxTokens)
	reviewers, verifier, err := models.Crew(opts.Verifier)
	if err != nil {
		return err
	}
	statePath, err := state.Path(d.Getenv)
	if err != nil {
		return err
	}
	res, runErr := eval.Run(ctx, eval.RunOptions{Git: g, Cases: slices.Concat(mined.Bugs, mined.Clean), Reviewers: reviewers, Verifier: verifier,
		Cache: &eval.Cache{Dir: filepath.Join(filepath.Dir(statePath), "eval")}, Budget: models.Budget, Cutoffs: cfg.ModelCutoffs, Progress: d.ProgressOut()})
	if runErr != nil && ctx.Err() != nil {
		return runErr // cancelled: the answers so far are cached, a rerun resumes
	}
	if runErr != nil {
		// The budget or a failure stopped it: the figures of what was
		// reviewed are still worth showing, said to be partial.
		d.Warn("the run stopped before every case was reviewed: %v; the report counts the cases reviewed, and a rerun asks only what is not cached", runErr)
	}
	rep := eval.Score(res, eval.ScoreOptions{Prices: cfg.Prices, After: opts.After, Cutoffs: cfg.ModelCutoffs})
	if opts.Export != nil {
		if err := opts.Export.Write(d, rep); err != nil {
			return err
		}
	} else if err := cmdutil.PrintMarkdown(d, rep.Markdown()); err != nil {
		return err
	}
	if runErr != nil {
		return cmdutil.ShownError{Err: runErr}
	}
	return nil
}

// evalCases are the cases: read from --cases, or mined; those merged
// before --after left out, then the newest --limit of each kind.
func evalCases(ctx context.Context, d *cmdutil.Deps, g *git.Repo, opts *Options) (*eval.Mined, error) {
	var m *eval.Mined
	if opts.Cases != "" {
		f, err := os.Open(opts.Cases)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if m, err = eval.ReadCases(ctx, g, f, opts.Cases); err != nil {
			return nil, err
		}
	} else {
		start := time.Now()
		var err error
		if m, err = eval.Mine(ctx, g, eval.Options{Ref: opts.Ref}); err != nil {
			return nil, err
		}
		d.Info("Mined %s and %s from %s in %s", text.Plural(len(m.Bugs), "bug case"), text.Plural(len(m.Clean), "clean case"), text.Plural(m.Fixes, "fix commit"), time.Since(start).Round(time.Millisecond))
	}
	m.Keep(opts.After, opts.Limit)
	return m, nil
}

// printCases is --list: the cases as JSON, or one line each.
func printCases(d *cmdutil.Deps, opts *Options, m *eval.Mined) error {
	if opts.Export != nil {
		return opts.Export.Write(d, m)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Cases\n\n%s and %s", text.Plural(len(m.Bugs), "bug case"), text.Plural(len(m.Clean), "clean case"))
	if len(m.Dropped) > 0 {
		var why []string
		for _, k := range slices.Sorted(maps.Keys(m.Dropped)) {
			why = append(why, fmt.Sprintf("%s: %d", k, m.Dropped[k]))
		}
		fmt.Fprintf(&b, "; left out: %s", strings.Join(why, "; "))
	}
	b.WriteString("\n\n| PR | Kind | Merged | Head | Changed lines | Fixed lines | Title |\n|---|---|---|---|---|---|---|\n")
	for _, c := range slices.Concat(m.Bugs, m.Clean) {
		kind := "clean"
		if len(c.Buggy) > 0 {
			kind = "bug"
		}
		fmt.Fprintf(&b, "| #%d | %s | %s | %s | %d | %d | %s |\n", c.PR, kind, c.Merged.Format(time.DateOnly), text.ShortOID(c.Head), c.Lines, len(c.Buggy), strings.ReplaceAll(text.OneLine(c.Title), "|", `\|`))
	}
	return cmdutil.PrintMarkdown(d, b.String())
}
