package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verify"
)

// StateShowOptions are the parsed arguments of state show.
type StateShowOptions struct {
	PR     int       // 0: every PR in the file
	Branch string    // --branch: the local review of this branch (gh ocdx review)
	Export *exporter // --json, --jq, --template; nil: Markdown
	Repo   string    // -R/--repo; with --pr it names the PR's repository, alone it filters
}

// StateClearOptions are the parsed arguments of state clear.
type StateClearOptions struct {
	PR       int
	Branch   string // --branch: the local review of this branch (gh ocdx review)
	Yes      bool
	Repo     string
	Prompter Prompter // asks for confirmation when there is a terminal
}

func runStateShow(_ context.Context, d *Deps, args []string) error {
	opts, err := parseStateShow(d, args)
	if err != nil {
		return err
	}
	stop := d.startPager()
	err = stateShow(d, opts)
	stop()
	if pagerQuit(err) {
		return nil
	}
	return err
}

func runStateClear(ctx context.Context, d *Deps, args []string) error {
	opts, err := parseStateClear(d, args)
	if err != nil {
		return err
	}
	opts.Prompter = d.prompter(ctx)
	return stateClear(d, opts)
}

func parseStateShow(d *Deps, args []string) (*StateShowOptions, error) {
	var o StateShowOptions
	var prFlag string
	fs := newFlagSet("state show", "gh ocdx state show [<number> | <url> | --branch NAME] [--json [fields]] [--jq EXPR | --template T] [-R OWNER/REPO]",
		`Show what gh-ocdx remembers: every pull request in the state file as a
table, or one pull request's runs, rounds, stuck findings, work in
progress and lease. It answers while a loop runs in another terminal.`)
	fs.StringVar(&prFlag, "pr", "", "Show this pull request in full (as the argument)")
	fs.StringVar(&o.Branch, "branch", "", "Show the local reviews (gh ocdx review) of this `branch` of the current repository")
	fs.repoFlag(&o.Repo)
	// One pull request's fields, or the list's.
	jf := addJSONFlags(fs, state.PR{})
	for _, f := range jsonFields(state.Summary{}) {
		if !slices.Contains(jf.fields, f) {
			jf.fields = append(jf.fields, f)
		}
	}
	jf.positional = true
	if err := fs.parse(d, jf.args(args), -1); err != nil {
		return nil, err
	}
	var err error
	if o.Export, err = jf.exporter(fs); err != nil {
		return nil, err
	}
	if err := checkStateFlags(fs, prFlag, &o.PR, false, &o.Repo); err != nil {
		return nil, err
	}
	if err := checkBranchFlag(fs, o.Branch, o.PR, o.Repo); err != nil {
		return nil, err
	}
	if o.Export != nil {
		// One pull request's fields, or the list's: what this output has.
		fields := jsonFields(state.Summary{})
		if o.PR > 0 || o.Branch != "" {
			fields = jsonFields(state.PR{})
		}
		if err := o.Export.only(fields); err != nil {
			return nil, err
		}
	}
	return &o, nil
}

func parseStateClear(d *Deps, args []string) (*StateClearOptions, error) {
	var o StateClearOptions
	var prFlag string
	fs := newFlagSet("state clear", "gh ocdx state clear <number> | <url> | --branch NAME [--yes] [-R OWNER/REPO]",
		`Forget everything recorded for a pull request: runs, rounds, stuck findings
and work in progress. Asks for confirmation; without a terminal, pass --yes.
A pull request that a live run is working on is not cleared.`)
	fs.StringVar(&prFlag, "pr", "", "The pull request to forget (as the argument)")
	fs.StringVar(&o.Branch, "branch", "", "Forget the local reviews (gh ocdx review) of this `branch` of the current repository")
	fs.BoolVar(&o.Yes, "yes", false, "Do not ask for confirmation")
	fs.repoFlag(&o.Repo)
	if err := fs.parse(d, args, -1); err != nil {
		return nil, err
	}
	if err := checkStateFlags(fs, prFlag, &o.PR, o.Branch == "", &o.Repo); err != nil {
		return nil, err
	}
	if err := checkBranchFlag(fs, o.Branch, o.PR, o.Repo); err != nil {
		return nil, err
	}
	if !o.Yes && !d.IO.CanPrompt() {
		return nil, fs.needsTerminal("state clear asks before it forgets", "pass --yes to clear without asking")
	}
	return &o, nil
}

// checkBranchFlag: --branch names a local review of this clone, so neither
// a pull request nor another repository goes with it.
func checkBranchFlag(fs *flagSet, branch string, pr int, repo string) error {
	switch {
	case branch == "":
		return nil
	case pr != 0:
		return fs.usageErr("--branch names a local review, not a pull request: give one or the other")
	case repo != "":
		return fs.usageErr("--branch names a local review of the current repository: -R does not apply")
	case strings.HasPrefix(branch, "-"):
		return fs.usageErr("invalid --branch %q: give a branch name", branch)
	}
	return nil
}

// checkStateFlags reads the PR (the argument or --pr) into pr and a URL's
// repository into repo. The state file is local: a PR is named by number or
// URL, not by branch, which only GitHub could resolve.
func checkStateFlags(fs *flagSet, prFlag string, pr *int, required bool, repo *string) error {
	arg, r, err := fs.prArgument(prFlag, *repo)
	switch {
	case err != nil:
		return err
	case arg.Branch != "":
		return fs.usageErr("invalid pull request %q: the state file names pull requests by number (24) or URL", arg.Branch)
	case required && arg.Number == 0:
		return fs.usageErr("missing argument: which pull request? (gh ocdx state clear 24)")
	}
	*pr = arg.Number
	if arg.Repo.Name != "" {
		*repo = repoString(r)
	}
	return nil
}

func openState(d *Deps) (*state.Store, error) {
	st, err := d.store()
	if err != nil {
		return nil, err
	}
	d.Log.Debug("state file", "path", st.Path())
	return st, nil
}

// prKey names the PR of --pr in the repository of -R, GH_REPO or the clone.
func prKey(d *Deps, repoFlag string, n int) (state.Key, error) {
	r, err := parseRepoFlag(repoFlag, d.defaultHost())
	if err == nil {
		r, err = currentRepo(d, r)
	}
	if err != nil {
		return state.Key{}, err
	}
	return state.NewKey(r.Host, r.Owner, r.Name, n), nil
}

// stateKey is the key of PR n (prKey), or with a branch the key of its
// local reviews in the current repository, as review records them.
func stateKey(d *Deps, repoFlag string, n int, branch string) (state.Key, error) {
	if branch == "" {
		return prKey(d, repoFlag, n)
	}
	wd, err := d.workDir()
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

func stateShow(d *Deps, o *StateShowOptions) error {
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
		renderPR(&b, st, pr)
		return printMarkdown(d, b.String())
	}

	var only string // "host/owner/repo#" with -R
	if o.Repo != "" {
		r, err := parseRepoFlag(o.Repo, d.defaultHost())
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
	renderList(d.IO.Out, st, list)
	return nil
}

func stateClear(d *Deps, o *StateClearOptions) error {
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
		msg := fmt.Sprintf("Forget everything recorded for %s (%s)?", key, describe(pr))
		ok, err := o.Prompter.Confirm(msg, false)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: nothing was cleared", ErrCancelled)
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
	d.success("Cleared the state of %s", key)
	return nil
}

func describe(pr state.PR) string {
	s := text.Plural(len(pr.Runs), "run") + ", " + text.Plural(len(pr.Stuck), "stuck finding")
	if pr.WIP != nil {
		s += ", work in progress"
	}
	return s
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// status is a run's outcome, or what became of a run that has none.
func status(st *state.Store, r state.Run, lease *state.Lease) string {
	switch {
	case r.Outcome != "":
		return string(r.Outcome)
	case lease != nil && lease.RunID == r.ID && st.Live(*lease):
		return "running"
	default:
		return "interrupted"
	}
}

func leaseText(st *state.Store, l *state.Lease) string {
	if l == nil {
		return "-"
	}
	s := fmt.Sprintf("pid %d on %s", l.PID, l.Host)
	if !st.Live(*l) {
		s += " (dead)"
	}
	return s
}

// renderList writes the table of PRs, newest first, its columns aligned as
// text/tabwriter would with a padding of 2. The table is built by hand:
// tabwriter took most of state show's time at 10,000 PRs.
func renderList(w io.Writer, st *state.Store, list []state.Summary) {
	// Newest first, as gh lists: by the last run's start, those never run
	// last. The rows are sorted by reference: a Summary is large to move.
	order := make([]*state.Summary, len(list))
	for i := range list {
		order[i] = &list[i]
	}
	slices.SortStableFunc(order, func(a, b *state.Summary) int {
		var ta, tb time.Time
		if a.Last != nil {
			ta = a.Last.Started
		}
		if b.Last != nil {
			tb = b.Last.Started
		}
		return tb.Compare(ta)
	})
	const cols = 8
	rows := make([][cols]string, 0, len(list)+1)
	rows = append(rows, [cols]string{"PR", "RUNS", "LAST RUN", "STATUS", "ROUNDS", "STUCK", "WIP", "LEASE"})
	for _, s := range order {
		last, stat := "-", "-"
		if s.Last != nil {
			last, stat = stamp(s.Last.Started), status(st, *s.Last, s.Lease)
		}
		wip := s.WIP
		if wip == "" {
			wip = "-"
		}
		rows = append(rows, [cols]string{s.Key.String(), strconv.Itoa(s.Runs), last, stat, strconv.Itoa(s.Rounds), strconv.Itoa(s.Stuck), wip, leaseText(st, s.Lease)})
	}
	var width [cols - 1]int // the last column is not padded
	for _, r := range rows {
		for c := range width {
			width[c] = max(width[c], utf8.RuneCountInString(r[c]))
		}
	}
	// One write for the whole table (write syscalls were a third of state
	// show when every cell went out on its own).
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	for _, r := range rows {
		for c := range width {
			bw.WriteString(r[c])
			for range width[c] - utf8.RuneCountInString(r[c]) + 2 {
				bw.WriteByte(' ')
			}
		}
		bw.WriteString(r[cols-1])
		bw.WriteByte('\n')
	}
}

// renderPR writes one PR's record as Markdown.
func renderPR(w io.Writer, st *state.Store, pr state.PR) {
	fmt.Fprintf(w, "# %s\n\n", pr.Key)
	if pr.Lease != nil {
		verb := "Held by"
		if !st.Live(*pr.Lease) {
			verb = "Lease of a dead or stale run (the next run takes it over):"
		}
		fmt.Fprintf(w, "%s %s.\n\n", verb, pr.Lease)
	} else {
		fmt.Fprintf(w, "No run is working on it.\n\n")
	}

	fmt.Fprintf(w, "## Stuck findings (%d)\n\n", len(pr.Stuck))
	for _, s := range pr.Stuck {
		fmt.Fprintf(w, "- %s (since run %s, round %d)\n", s.ID, s.RunID, s.Round)
	}
	if len(pr.Stuck) == 0 {
		fmt.Fprintln(w, "None.")
	}
	if len(pr.Disputed) > 0 {
		fmt.Fprintf(w, "\n## Disputed findings (%d)\n\n", len(pr.Disputed))
		for _, x := range pr.Disputed {
			fmt.Fprintf(w, "- %s (conceded in a conversation, %s; it blocks until someone dismisses it)\n", x.ID, stamp(x.Since))
		}
	}
	if len(pr.Dismissed) > 0 {
		fmt.Fprintf(w, "\n## Dismissed for the local review (%d)\n\n", len(pr.Dismissed))
		for _, x := range pr.Dismissed {
			fmt.Fprintf(w, "- %s (by %s, %s)\n", x.ID, orDash(x.By), stamp(x.At))
		}
	}

	if x := pr.WIP; x != nil {
		fmt.Fprintf(w, "\n## Work in progress\n\n")
		item(w, "Phase", x.Phase)
		item(w, "Next step", x.NextStep)
		item(w, "Context", x.Context)
		item(w, "Files modified", strings.Join(x.FilesModified, ", "))
		if x.UncommittedChanges {
			item(w, "Uncommitted changes", "yes")
		}
		item(w, "Last commit", text.ShortOID(x.LastCommit))
		item(w, "Verification", verifications(x.Verification))
		for _, e := range x.Errors {
			item(w, "Error", strings.TrimSpace(strings.Join([]string{e.Type, e.File, e.Message}, " ")))
		}
		for _, dec := range x.Decisions {
			item(w, "Decision", strings.TrimSuffix(dec.Decision+" — "+dec.Reason, " — "))
		}
		item(w, "Updated", stamp(x.Updated)+" by run "+x.RunID)
	}

	fmt.Fprintf(w, "\n## Runs (%d), newest first\n", len(pr.Runs))
	for _, r := range slices.Backward(pr.Runs) {
		fmt.Fprintf(w, "\n### Run %s: %s, %s\n\n", r.ID, r.Kind, status(st, r, pr.Lease))
		fmt.Fprintf(w, "Started %s", stamp(r.Started))
		if !r.Ended.IsZero() {
			fmt.Fprintf(w, ", ended %s", stamp(r.Ended))
		}
		if r.Resumes > 0 {
			fmt.Fprintf(w, ", resumed %s", text.Plural(r.Resumes, "time"))
		}
		if r.Reason != "" {
			fmt.Fprintf(w, ": %s", r.Reason)
		}
		fmt.Fprintln(w, ".")
		if r.Source != "" {
			fmt.Fprintf(w, "Recorded on another machine; rebuilt %s.\n", text.Inert(r.Source))
		} else {
			fmt.Fprintln(w, "Recorded on this machine (local).")
		}
		if r.Compacted {
			fmt.Fprintln(w, "Full reports dropped after convergence; summaries kept.")
		}
		for _, rd := range r.Rounds {
			renderRound(w, rd)
		}
	}
}

func renderRound(w io.Writer, rd state.Round) {
	var phases []string
	for _, p := range rd.Phases {
		phases = append(phases, string(p.Phase))
	}
	done := strings.Join(phases, ", ")
	if done == "" {
		done = "nothing done yet"
	}
	fmt.Fprintf(w, "\n- Round %d, head %s: %s\n", rd.N, short(rd.HeadOID), done)
	sub := func(label, v string) {
		if v != "" {
			fmt.Fprintf(w, "  - %s: %s\n", label, v)
		}
	}
	sub("Consensus", rd.Consensus)
	if len(rd.FindingIDs) > 0 || rd.Counts != (finding.Counts{}) {
		sub("Findings", fmt.Sprintf("%d %s", len(rd.FindingIDs), counts(rd.Counts)))
	}
	for _, f := range rd.Findings { // each with who raised it (gone after decay)
		what := f.Priority + " " + text.Inert(text.OneLine(f.Title))
		if a := consensus.Agreement(f); a != "" {
			what += " · " + a
		}
		fmt.Fprintf(w, "    - %s: %s\n", f.ID, what)
	}
	sub("Failed roles", strings.Join(rd.FailedRoles, ", "))
	if res, ok := fix.Recorded(rd); ok {
		var rejected, commits []string
		for _, x := range res.Rejected {
			rejected = append(rejected, x.FindingID)
		}
		for _, c := range res.Commits {
			commits = append(commits, text.ShortOID(c.Sha))
		}
		sub("Fix", string(res.Status))
		sub("Fixed", strings.Join(res.FixedIDs(), ", "))
		sub("Rejected", strings.Join(rejected, ", "))
		sub("Commits", strings.Join(commits, ", "))
	}
	sub("Stuck", strings.Join(rd.StuckIDs, ", "))
	sub("Disputed", strings.Join(rd.DisputedIDs, ", "))
	if rd.Pushing != "" && !rd.Done(state.PhasePushed) {
		sub("Pushing, not confirmed (the run stopped during its push)", short(rd.Pushing))
	}
	for _, c := range rd.Comments {
		sub("Posted "+c.Kind, c.URL)
	}
	sub("Verification", verifications(rd.Verification))
	for _, r := range rd.Reports {
		sub("Report of "+r.Role, r.Summary)
	}
	for _, u := range rd.Usage {
		used := u.Usage.String()
		if u.CostUSD > 0 {
			used += ", estimated " + tokens.Dollars(u.CostUSD)
		}
		sub("Tokens of "+u.Role, used)
	}
}

func item(w io.Writer, label, v string) {
	if v != "" {
		fmt.Fprintf(w, "- %s: %s\n", label, v)
	}
}

// short is text.ShortOID with a dash for a round that has no head yet.
func short(oid string) string {
	if oid == "" {
		return "-"
	}
	return text.ShortOID(oid)
}

// counts lists per-priority counts in key order (P0, P1, ...).
func counts(c finding.Counts) string {
	if c == (finding.Counts{}) {
		return ""
	}
	return fmt.Sprintf("(P0 %d, P1 %d, P2 %d, P3 %d)", c.P0, c.P1, c.P2, c.P3)
}

func verifications(vs []verify.Result) string {
	var parts []string
	for _, v := range vs {
		res := "ok"
		if !v.OK {
			res = fmt.Sprintf("failed (exit %d)", v.ExitCode)
		}
		parts = append(parts, fmt.Sprintf("`%s` %s", v.Command, res))
	}
	return strings.Join(parts, "; ")
}

// exportState writes state records as --json does for every verb: pr as
// {number, repository, url} (a local review's as {repository, branch}),
// durations in seconds. The state file keeps its own shapes.
func exportState(d *Deps, e *exporter, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	// Every field asked for, from the record's type, before it is reshaped.
	if b, err = selectFields(b, e.fields, zeroFields(v)); err != nil {
		return err
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	all := *e
	all.fields = nil
	return all.write(d, outputShapes(x))
}

func outputShapes(x any) any {
	switch v := x.(type) {
	case []any:
		for i := range v {
			v[i] = outputShapes(v[i])
		}
	case map[string]any:
		for k, val := range v {
			switch s, isString := val.(string); {
			case k == "pr" && isString:
				v[k] = prOutput(s)
			case k == "duration":
				if ns, ok := val.(float64); ok {
					delete(v, k)
					v["durationSeconds"] = ns / 1e9
				}
			default:
				v[k] = outputShapes(val)
			}
		}
	}
	return x
}

// prOutput is a state key as --json names a pull request.
func prOutput(key string) any {
	k, err := state.ParseKey(key)
	switch {
	case err != nil:
		return key
	case k.IsLocal():
		return map[string]any{"repository": k.Local, "branch": k.Branch}
	}
	return report.PRRef{Number: k.Number, Repository: k.Owner + "/" + k.Repo,
		URL: fmt.Sprintf("https://%s/%s/%s/pull/%d", k.Host, k.Owner, k.Repo, k.Number)}
}
