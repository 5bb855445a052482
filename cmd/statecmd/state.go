package statecmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/jsonout"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/stateview"
)

// ShowOptions are the parsed arguments of state show.
type ShowOptions struct {
	PR     int               // 0: every PR in the file
	Branch string            // --branch: the local review of this branch (gh ocdx review)
	Export *cmdutil.Exporter // --json, --jq, --template; nil: Markdown
	Repo   string            // -R/--repo; with --pr it names the PR's repository, alone it filters
}

// ClearOptions are the parsed arguments of state clear.
type ClearOptions struct {
	PR       int
	Branch   string // --branch: the local review of this branch (gh ocdx review)
	Yes      bool
	Repo     string
	Prompter cmdutil.Prompter // asks for confirmation when there is a terminal
}

// RunShow shows the state file through the person's pager.
func RunShow(_ context.Context, d *cmdutil.Deps, opts *ShowOptions) error {
	stop := d.StartPager()
	err := stateShow(d, opts)
	stop()
	if cmdutil.PagerQuit(err) {
		return nil
	}
	return err
}

// RunClear clears what opts names, asking first unless --yes.
func RunClear(ctx context.Context, d *cmdutil.Deps, opts *ClearOptions) error {
	if opts.Prompter == nil {
		opts.Prompter = d.NewPrompter(ctx)
	}
	return stateClear(d, opts)
}

// ParseShow reads state show's arguments.
func ParseShow(d *cmdutil.Deps, args []string) (*ShowOptions, error) {
	var o ShowOptions
	var prFlag string
	fs := cmdutil.NewFlagSet("state show", "gh ocdx state show [<number> | <url> | --branch NAME] [--json [fields]] [--jq EXPR | --template T] [-R OWNER/REPO]",
		`Show what gh-ocdx remembers: every pull request in the state file as a
table, or one pull request's runs, rounds, stuck findings, work in
progress and lease. It answers while a loop runs in another terminal.`)
	fs.StringVar(&prFlag, "pr", "", "Show this pull request in full (as the argument)")
	fs.StringVar(&o.Branch, "branch", "", "Show the local reviews (gh ocdx review) of this `branch` of the current repository")
	fs.RepoFlag(&o.Repo)
	// One pull request's fields, or the list's.
	jf := cmdutil.AddJSONFlags(fs, state.PR{}, state.Summary{})
	jf.Positional = true
	if err := fs.ParseArgs(d, jf.Args(args), -1); err != nil {
		return nil, err
	}
	var err error
	if o.Export, err = jf.Exporter(fs); err != nil {
		return nil, err
	}
	if err := checkStateFlags(fs, prFlag, &o.PR, false, &o.Repo); err != nil {
		return nil, err
	}
	if err := cmdutil.CheckBranchFlag(fs, o.Branch, o.PR, o.Repo); err != nil {
		return nil, err
	}
	if o.Export != nil {
		// One pull request's fields, or the list's: what this output has.
		fields := jsonout.Fields(state.Summary{})
		if o.PR > 0 || o.Branch != "" {
			fields = jsonout.Fields(state.PR{})
		}
		if err := o.Export.Only(fields); err != nil {
			return nil, err
		}
	}
	return &o, nil
}

// ParseClear reads state clear's arguments.
func ParseClear(d *cmdutil.Deps, args []string) (*ClearOptions, error) {
	var o ClearOptions
	var prFlag string
	fs := cmdutil.NewFlagSet("state clear", "gh ocdx state clear <number> | <url> | --branch NAME [--yes] [-R OWNER/REPO]",
		`Forget everything recorded for a pull request: runs, rounds, stuck findings
and work in progress. Asks for confirmation; without a terminal, pass --yes.
A pull request that a live run is working on is not cleared.`)
	fs.StringVar(&prFlag, "pr", "", "The pull request to forget (as the argument)")
	fs.StringVar(&o.Branch, "branch", "", "Forget the local reviews (gh ocdx review) of this `branch` of the current repository")
	fs.BoolVar(&o.Yes, "yes", false, "Do not ask for confirmation")
	fs.RepoFlag(&o.Repo)
	if err := fs.ParseArgs(d, args, -1); err != nil {
		return nil, err
	}
	if err := checkStateFlags(fs, prFlag, &o.PR, o.Branch == "", &o.Repo); err != nil {
		return nil, err
	}
	if err := cmdutil.CheckBranchFlag(fs, o.Branch, o.PR, o.Repo); err != nil {
		return nil, err
	}
	if !o.Yes && !d.IO.CanPrompt() {
		return nil, fs.NeedsTerminal("state clear asks before it forgets", "pass --yes to clear without asking")
	}
	return &o, nil
}

// checkStateFlags reads the PR (the argument or --pr) into pr and a URL's
// repository into repo. The state file is local: a PR is named by number or
// URL, not by branch, which only GitHub could resolve.
func checkStateFlags(fs *cmdutil.FlagSet, prFlag string, pr *int, required bool, repo *string) error {
	arg, r, err := fs.PRArgument(prFlag, *repo)
	switch {
	case err != nil:
		return err
	case arg.Branch != "":
		return fs.UsageErr("invalid pull request %q: the state file names pull requests by number (24) or URL", arg.Branch)
	case required && arg.Number == 0:
		return fs.UsageErr("missing argument: which pull request? (gh ocdx state clear 24)")
	}
	*pr = arg.Number
	if arg.Repo.Name != "" {
		*repo = cmdutil.RepoString(r)
	}
	return nil
}

func openState(d *cmdutil.Deps) (*state.Store, error) {
	st, err := d.OpenStore()
	if err != nil {
		return nil, err
	}
	d.Log.Debug("state file", "path", st.Path())
	return st, nil
}

// prKey names the PR of --pr in the repository of -R, GH_REPO or the clone.
func prKey(d *cmdutil.Deps, repoFlag string, n int) (state.Key, error) {
	r, err := cmdutil.ParseRepoFlag(repoFlag, d.DefaultHost())
	if err == nil {
		r, err = cmdutil.CurrentRepo(d, r)
	}
	if err != nil {
		return state.Key{}, err
	}
	return state.NewKey(r.Host, r.Owner, r.Name, n), nil
}

// stateKey is the key of PR n (prKey), or with a branch the key of its
// local reviews in the current repository, as review records them.
func stateKey(d *cmdutil.Deps, repoFlag string, n int, branch string) (state.Key, error) {
	if branch == "" {
		return prKey(d, repoFlag, n)
	}
	wd, err := d.Dir()
	if err != nil {
		return state.Key{}, err
	}
	// Reads of git's configuration: nothing to cancel.
	g, err := git.Open(context.Background(), wd)
	if err != nil {
		return state.Key{}, fmt.Errorf("--branch names a local review of the current repository: %w", err)
	}
	return state.LocalKey(g.OriginID(context.Background()), branch), nil
}

func stateShow(d *cmdutil.Deps, o *ShowOptions) error {
	if o.PR > 0 || o.Branch != "" {
		key, err := stateKey(d, o.Repo, o.PR, o.Branch)
		if err != nil {
			return err
		}
		st, err := openState(d)
		if err != nil {
			return err
		}
		pr, err := st.PR(key)
		found := !errors.Is(err, state.ErrNotFound)
		if err != nil && found {
			return err
		}
		switch {
		case o.Export != nil:
			return exportState(d, o.Export, pr)
		case !found:
			fmt.Fprintf(d.IO.Out, "Nothing recorded for %s.\n", key)
			return nil
		}
		var b strings.Builder
		stateview.PR(&b, st, pr)
		return cmdutil.PrintMarkdown(d, b.String())
	}

	var only string // "host/owner/repo#" with -R
	if o.Repo != "" {
		r, err := cmdutil.ParseRepoFlag(o.Repo, d.DefaultHost())
		if err != nil {
			return err
		}
		only = strings.TrimSuffix(state.NewKey(r.Host, r.Owner, r.Name, 1).String(), "1")
	}
	st, err := openState(d)
	if err != nil {
		return err
	}
	all, err := st.List()
	if err != nil {
		return err
	}
	list := all[:0]
	for _, s := range all {
		if strings.HasPrefix(s.Key.String(), only) {
			list = append(list, s)
		}
	}
	if o.Export != nil {
		return exportState(d, o.Export, list)
	}
	if len(list) == 0 {
		fmt.Fprintf(d.IO.Out, "No pull requests recorded in %s.\n", st.Path())
		return nil
	}
	stateview.List(d.IO.Out, st, list)
	return nil
}

func stateClear(d *cmdutil.Deps, o *ClearOptions) error {
	key, err := stateKey(d, o.Repo, o.PR, o.Branch)
	if err != nil {
		return err
	}
	st, err := openState(d)
	if err != nil {
		return err
	}
	if !o.Yes {
		pr, err := st.PR(key)
		if errors.Is(err, state.ErrNotFound) {
			fmt.Fprintf(d.IO.Out, "Nothing recorded for %s.\n", key)
			return nil
		}
		if err != nil {
			return err
		}
		msg := fmt.Sprintf("Forget everything recorded for %s (%s)?", key, stateview.Describe(pr))
		ok, err := o.Prompter.Confirm(msg, false)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: nothing was cleared", cmdutil.ErrCancelled)
		}
	}
	err = st.Clear(key)
	if errors.Is(err, state.ErrNotFound) {
		fmt.Fprintf(d.IO.Out, "Nothing recorded for %s.\n", key)
		return nil
	}
	if err != nil {
		return err
	}
	d.Success("Cleared the state of %s", key)
	return nil
}

// exportState writes state records as --json does for every verb
// (stateview.JSON).
func exportState(d *cmdutil.Deps, e *cmdutil.Exporter, v any) error {
	x, err := stateview.JSON(v, e.Fields)
	if err != nil {
		return err
	}
	return e.Whole().Write(d, x)
}
