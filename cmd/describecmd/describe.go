package describecmd

import (
	"cmp"
	"context"
	"errors"

	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/config"
	prdesc "github.com/ocdx/gh-ocdx/describe"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/report"
)

// Options are the parsed arguments of describe.
type Options struct {
	Number   int    // 0: the open PR of Branch, else of the checked-out branch
	Branch   string // the PR's head branch, when named so
	Repo     repository.Repository
	Model    string // --model; "" = the configured describeModel
	Diagram  bool   // ask for a Mermaid diagram
	Post     bool   // post it as gh-ocdx's description comment
	EditBody bool   // write it into the PR's body between gh-ocdx's markers
	// MaxTokens is the call's token budget (--max-tokens); 0: the
	// configuration's maxTokens, if any.
	MaxTokens int64
	Export    *cmdutil.Exporter // --json, --jq, --template
}

const describeUsage = "gh ocdx describe [<number> | <url> | <branch>] [--diagram] [--post] [--edit-body] [--model P/M] [--max-tokens N] [--json [fields]] [-R OWNER/REPO]"

const describeHelp = `Say what a pull request does, for the people about to review it.

One call of the describeModel (default: the comments analyzer's model) over
the PR's deterministic context (title, body, commits, linked issues, the
diff cut at 50KB as a review's) writes:
  a summary of what changes and why;
  a walkthrough: the changed files grouped by purpose, each file linked;
  for each linked issue, its requirements and whether the PR meets each
  (met, not met, unclear), citing the lines. A requirement is kept only
  when the issue's text states it, and a file only when the PR changes it;
  with --diagram, a Mermaid diagram of the interaction the change alters.

It is shown on stdout (rendered on a terminal). --post posts it as
gh-ocdx's description comment: one per PR, edited in place by a rerun.
--edit-body writes it into the PR's body between gh-ocdx's markers; the
author's text around them is left as it is. The PR's words and the
model's are shown as words: nothing in them posts markup or an /ocdx
command, and secrets are masked.

Examples:
  gh ocdx describe
  gh ocdx describe 24 --diagram
  gh ocdx describe 24 --post
  gh ocdx describe 24 --json summary,issues`

// Parse reads describe's arguments.
func Parse(d *cmdutil.Deps, args []string) (*Options, error) {
	var repoFlag string
	opts := &Options{}
	fs := cmdutil.NewFlagSet("describe", describeUsage, describeHelp)
	fs.StringVar(&opts.Model, "model", "", "Describe with this provider/model instead of the configured describeModel")
	fs.BoolVar(&opts.Diagram, "diagram", false, "Add a Mermaid diagram of the interaction the change alters, when it has one")
	fs.BoolVar(&opts.Post, "post", false, "Post the description as gh-ocdx's description comment (a rerun edits it)")
	fs.BoolVar(&opts.EditBody, "edit-body", false, "Write the description into the PR's body, between gh-ocdx's markers")
	fs.MaxTokensFlag(&opts.MaxTokens, "Stop before a model call that could bring the tokens (in and out) past `N`")
	jf := cmdutil.AddJSONFlags(fs, describeOutput{})
	jf.Positional = true
	fs.RepoFlag(&repoFlag)
	if err := fs.ParseArgs(d, jf.Args(args), -1); err != nil {
		return nil, err
	}
	var err error
	if opts.Export, err = jf.Exporter(fs); err != nil {
		return nil, err
	}
	if err := fs.CheckModel(opts.Model); err != nil {
		return nil, err
	}
	pr, r, err := fs.PRArgument("", repoFlag)
	if err != nil {
		return nil, err
	}
	opts.Number, opts.Branch, opts.Repo = pr.Number, pr.Branch, r
	return opts, nil
}

// describeOutput is describe's --json.
type describeOutput struct {
	PR          report.PRRef        `json:"pr"`
	Head        string              `json:"head"`
	Summary     string              `json:"summary"`
	Walkthrough []prdesc.Group      `json:"walkthrough"`
	Issues      []prdesc.IssueCheck `json:"issues"`
	Diagram     string              `json:"diagram"`
	Dropped     []string            `json:"dropped"`
	Markdown    string              `json:"markdown"`
	CommentURL  string              `json:"commentUrl"` // --post: the comment posted or edited
	BodyEdited  bool                `json:"bodyEdited"`
	Model       string              `json:"model"`
	Usage       tokens.Usage        `json:"usage"`
	CostUSD     float64             `json:"estimatedCostUsd,omitempty"`
}

// Run describes the pull request opts names.
func Run(ctx context.Context, d *cmdutil.Deps, opts *Options) error {
	cfg, err := cmdutil.LoadConfigForModel(d, opts.Model, "describeModel", "commentsAnalyzerModel")
	if err != nil {
		return err
	}
	name := cmp.Or(opts.Model, cfg.Describe.String())
	models := cmdutil.NewRunModels(d, cfg, opts.MaxTokens)
	model, err := models.Model("describe", name, "describeModel")
	if err != nil {
		return err
	}
	repo, client, number, err := cmdutil.ResolvePR(ctx, d, cmdutil.PRArg{Number: opts.Number, Branch: opts.Branch, Repo: opts.Repo}, describeUsage)
	if err != nil {
		return err
	}
	opts.Number = number
	in, err := describeInput(ctx, d, client, repo, opts.Number, opts.Diagram)
	if err != nil {
		return err
	}
	pr := in.Review.PR
	desc, usage, err := prdesc.Run(ctx, model, models.Reserve(), in)
	out := describeOutput{PR: report.RefOf(repo, pr), Head: pr.HeadRefOid, Model: name, Usage: usage}
	if price, ok := cfg.Prices[name]; ok {
		out.CostUSD = price.Cost(usage.Input, usage.Cached, usage.Output)
	}
	if usage.Calls > 0 {
		d.Info("describe (%s): %s", name, tokens.Spent(out.Usage, out.CostUSD))
	}
	var be *llm.BudgetError
	switch {
	case errors.As(err, &be) || errors.Is(err, llm.ErrBudget):
		return &cmdutil.IncompleteError{Reason: err.Error() + "; nothing was described. Re-run with a larger --max-tokens (or maxTokens in the configuration)"}
	case err != nil:
		return err
	}
	for _, why := range desc.Dropped {
		d.Warn("left out of the description: %s", why)
	}
	md := prdesc.Markdown(desc, pr)
	out.Summary, out.Walkthrough, out.Issues, out.Diagram, out.Dropped, out.Markdown = desc.Summary, desc.Walkthrough, desc.Issues, desc.Diagram, desc.Dropped, md
	if opts.Post {
		if out.CommentURL, err = postDescription(ctx, d, client, repo, pr, md, prdesc.Footer(name, out.Usage, out.CostUSD)); err != nil {
			return err
		}
	}
	if opts.EditBody {
		// The body as the query read it: an edit the author makes in
		// between is overwritten, as any two edits of one body race.
		if err := client.EditPRBody(ctx, repo, pr.Number, prdesc.EditBody(pr.Body, md)); err != nil {
			return err
		}
		out.BodyEdited = true
		d.Success("Wrote the description into the body of %s#%d", repo, pr.Number)
	}
	if opts.Export != nil {
		return opts.Export.Write(d, out)
	}
	return cmdutil.PrintMarkdown(d, md)
}

// Opening is the description that opens review-loop's first
// report on pr when the configuration or the base branch's .ocdx.json
// asks for it ("describe": true; docs/architecture.md, Describe): ""
// otherwise, and on a PR that holds a gh-ocdx report already. It is one
// more call within the run's budget, said with its tokens and cost; when
// it fails, that is said and the review goes on without it. With
// "describe": {"compliance": "finding"}, the requirements it finds not met
// come with it, as findings.
func Opening(ctx context.Context, d *cmdutil.Deps, cfg *config.Config, models *cmdutil.RunModels, client *github.Client, repo github.Repo, pr *github.PullRequest) (string, []finding.Finding) {
	if !cfg.DescribesFirst() {
		return "", nil
	}
	if _, _, _, reported := posts.PRLedger(pr); reported {
		return "", nil
	}
	name := cfg.Describe.String()
	model, err := models.Model("describe", name, "describeModel")
	var in prdesc.Input
	if err == nil {
		in, err = describeInput(ctx, d, client, repo, pr.Number, false)
	}
	var desc prdesc.Description
	var usage tokens.Usage
	if err == nil {
		desc, usage, err = prdesc.Run(ctx, model, models.Reserve(), in)
	}
	cost := 0.0
	if price, ok := cfg.Prices[name]; ok {
		cost = price.Cost(usage.Input, usage.Cached, usage.Output)
	}
	if usage.Calls > 0 {
		d.Info("describe (%s): %s", name, tokens.Spent(usage, cost))
	}
	if err != nil {
		d.Warn("the first report opens without a description: %v", err)
		return "", nil
	}
	var notMet []finding.Finding
	if cfg.ComplianceAsFindings() {
		notMet = prdesc.Findings(desc, name)
	}
	return prdesc.Markdown(desc, in.Review.PR) + "\n" + prdesc.Footer(name, usage, cost) + "\n", notMet
}

// describeInput reads what the description is written from
// (describe.Gather), with the base branch's policy.
func describeInput(ctx context.Context, d *cmdutil.Deps, client *github.Client, repo github.Repo, number int, diagram bool) (prdesc.Input, error) {
	return prdesc.Gather(ctx, client, repo, number, diagram, func(pr *github.PullRequest) (*config.Policy, error) {
		p, _, err := cmdutil.BasePolicy(pr)
		return p, err
	}, d.Warn)
}

// postDescription posts md as gh-ocdx's description comment on pr, or
// edits its own (describe.Post), and says which.
func postDescription(ctx context.Context, d *cmdutil.Deps, client *github.Client, repo github.Repo, pr *github.PullRequest, md, footer string) (string, error) {
	url, updated, err := prdesc.Post(ctx, client, repo, pr, md, footer)
	switch {
	case err != nil:
		return "", err
	case updated:
		d.Success("Updated the description on %s#%d: %s", repo, pr.Number, url)
	default:
		d.Success("Posted the description on %s#%d: %s", repo, pr.Number, url)
	}
	return url, nil
}
