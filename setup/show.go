// Package setup is the config verbs' work (gh ocdx config init, show,
// validate): the file init writes and what to do next, the configuration
// as show gives it (Markdown, JSON; an invalid file listed with its
// problems), and each model asked of its provider.
package setup

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/llm"
)

// Shown is the output of config show --json: the keys of the file with
// defaults applied, and where things came from.
type Shown struct {
	Path                  string                  `json:"path"`
	Legacy                bool                    `json:"legacy"`
	ReviewerModels        []string                `json:"reviewerModels"`
	CommentsAnalyzerModel string                  `json:"commentsAnalyzerModel"`
	PRFixModel            string                  `json:"prFixModel"`
	ReviewPRModel         string                  `json:"reviewPrModel"`
	VerifierModel         string                  `json:"verifierModel,omitempty"` // "": no verifier
	ReplyModel            string                  `json:"replyModel"`              // gh ocdx reply and ask; default reviewPrModel
	DescribeModel         string                  `json:"describeModel"`           // gh ocdx describe; default commentsAnalyzerModel
	MaxReplies            int                     `json:"maxReplies"`
	AllowApprove          bool                    `json:"allowApprove"`
	OutputTokens          map[string]int64        `json:"outputTokens,omitempty"` // the roles with their own output cap
	Verify                []string                `json:"verify"`
	VerifyFrom            string                  `json:"verifyFrom"` // the file verify came from; "" when there is none
	Defaults              []string                `json:"defaults"`   // keys absent from the file, filled with defaults
	MaxTokens             int64                   `json:"maxTokens,omitempty"`
	Prices                map[string]config.Price `json:"prices,omitempty"`
	Analyzers             []shownAnalyzer         `json:"analyzers"`
	AnalyzersFrom         string                  `json:"analyzersFrom"`          // the file analyzers came from; "" when there are none
	ModelCutoffs          map[string]string       `json:"modelCutoffs,omitempty"` // "provider/model": YYYY-MM-DD
	Providers             []shownProvider         `json:"providers"`
	// Valid is false for a file that is not a valid configuration: then
	// only path and problems are set.
	Valid    bool           `json:"valid"`
	Problems []shownProblem `json:"problems"`
}

// shownProblem is one problem of an invalid configuration file.
type shownProblem struct {
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Key     string `json:"key,omitempty"`
	Env     string `json:"env,omitempty"`
	Message string `json:"message"`
}

// shownAnalyzer is an analyzer in effect, its argv masked: an argument
// may carry a token.
type shownAnalyzer struct {
	Name    string   `json:"name"`
	Argv    []string `json:"argv"`
	Format  string   `json:"format"`  // "" detects it
	Timeout int64    `json:"timeout"` // seconds
}

// shownProvider is a provider in use, where it is reached.
type shownProvider struct {
	Name          string `json:"name"`
	Endpoint      string `json:"endpoint"`
	CredentialEnv string `json:"credentialEnv,omitempty"`
}

// Show is the configuration as config show --json gives it, endpoints as
// getenv sets them.
func Show(c *config.Config, getenv func(string) string) Shown {
	out := Shown{
		Path: c.Path, Legacy: c.Legacy,
		CommentsAnalyzerModel: c.CommentsAnalyzer.String(),
		PRFixModel:            c.PRFix.String(),
		ReviewPRModel:         c.ReviewPR.String(),
		ReplyModel:            c.Reply.String(),
		DescribeModel:         c.Describe.String(),
		MaxReplies:            cmp.Or(c.MaxReplies, config.DefaultMaxReplies),
		AllowApprove:          c.AllowApprove,
		OutputTokens:          c.OutputTokens,
		Verify:                append([]string{}, c.Verify...),
		VerifyFrom:            verifyFrom(c),
		Defaults:              append([]string{}, c.Defaults...),
		MaxTokens:             c.MaxTokens,
		Prices:                c.Prices,
		Analyzers:             []shownAnalyzer{},
		AnalyzersFrom:         analyzersFrom(c),
		Providers:             []shownProvider{},
		Valid:                 true,
		Problems:              []shownProblem{},
	}
	for _, m := range c.Reviewers {
		out.ReviewerModels = append(out.ReviewerModels, m.String())
	}
	if c.Verifier.Provider.Name != "" {
		out.VerifierModel = c.Verifier.String()
	}
	for _, a := range c.Analyzers {
		argv := make([]string, len(a.Argv))
		for i, arg := range a.Argv {
			argv[i] = redact.Mask(arg)
		}
		out.Analyzers = append(out.Analyzers, shownAnalyzer{Name: a.Name, Argv: argv, Format: string(a.Format), Timeout: int64(timeout(a) / time.Second)})
	}
	if len(c.ModelCutoffs) > 0 {
		out.ModelCutoffs = map[string]string{}
		for m, t := range c.ModelCutoffs {
			out.ModelCutoffs[m] = t.Format(time.DateOnly)
		}
	}
	for _, p := range c.UsedProviders() {
		out.Providers = append(out.Providers, shownProvider{Name: p.Name, Endpoint: Endpoint(getenv, p), CredentialEnv: p.CredentialEnv})
	}
	return out
}

func verifyFrom(c *config.Config) string {
	switch {
	case c.VerifyFrom != "":
		return c.VerifyFrom
	case slices.Contains(c.Defaults, "verify"):
		return ""
	default:
		return c.Path
	}
}

// analyzersFrom is the file the analyzers in effect came from: the
// repository's .ocdx.json or the configuration; "" when there are none.
func analyzersFrom(c *config.Config) string {
	if len(c.Analyzers) == 0 {
		return ""
	}
	return cmp.Or(c.AnalyzersFrom, c.Path)
}

func timeout(a config.Analyzer) time.Duration {
	return cmp.Or(a.Timeout, config.DefaultAnalyzerTimeout)
}

// WorktreePolicy labels the .ocdx.json that config show and validate read.
const WorktreePolicy = "this working tree's .ocdx.json; for a pull request, review-loop and fix read the one on its base branch"

// Markdown is the configuration c as config show prints it.
func Markdown(c *config.Config, getenv func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# gh-ocdx configuration\n\nRead from `%s`", c.Path)
	if c.Legacy {
		b.WriteString(" (the legacy location)")
	}
	b.WriteString(".\n\n| role | model |\n|---|---|\n")
	for i, m := range c.Reviewers {
		fmt.Fprintf(&b, "| reviewer %d | %s |\n", i+1, m)
	}
	fmt.Fprintf(&b, "| comments analyzer | %s |\n| pr-fix | %s |\n", c.CommentsAnalyzer, c.PRFix)
	fmt.Fprintf(&b, "| review-pr | %s", c.ReviewPR)
	if slices.Contains(c.Defaults, "reviewPrModel") {
		b.WriteString(" (default: the first reviewer)")
	}
	b.WriteString(" |\n")
	fmt.Fprintf(&b, "| reply | %s", c.Reply)
	if c.Reply.String() == c.ReviewPR.String() {
		b.WriteString(" (default: review-pr's)")
	}
	b.WriteString(" |\n")
	fmt.Fprintf(&b, "| describe | %s", c.Describe)
	if c.Describe.String() == c.CommentsAnalyzer.String() {
		b.WriteString(" (default: the comments analyzer's)")
	}
	b.WriteString(" |\n")
	if c.Verifier.Provider.Name != "" {
		fmt.Fprintf(&b, "| verifier | %s |\n", c.Verifier)
	} else {
		b.WriteString("| verifier | none (set verifierModel to check the findings a single reviewer raised) |\n")
	}
	b.WriteString("\n")
	if c.AllowApprove {
		b.WriteString("review-pr posts a model's approval as an approval (allowApprove).\n")
	} else {
		b.WriteString("review-pr posts a model's approval as a comment (set allowApprove to let it approve).\n")
	}
	if len(c.OutputTokens) > 0 {
		var caps []string
		for _, k := range slices.Sorted(maps.Keys(c.OutputTokens)) {
			caps = append(caps, fmt.Sprintf("%s %d", k, c.OutputTokens[k]))
		}
		fmt.Fprintf(&b, "Output caps (outputTokens), in tokens per answer: %s; other roles %d.\n", strings.Join(caps, ", "), llm.DefaultMaxTokens)
	}
	b.WriteString("\n## Verify\n\n")
	switch from := verifyFrom(c); {
	case len(c.Verify) == 0:
		b.WriteString("None: fix and review-loop push nothing until `verify` is set in this file or in the repository's `.ocdx.json`.\n")
	case from == c.Path:
		b.WriteString("Commands run before a fix is pushed, from the configuration:\n\n")
	default:
		fmt.Fprintf(&b, "Commands run before a fix is pushed, from `%s` (%s):\n\n", from, WorktreePolicy)
	}
	for _, v := range c.Verify {
		fmt.Fprintf(&b, "- `%s`\n", v)
	}
	b.WriteString("\n## Analyzers\n\n")
	switch from := analyzersFrom(c); {
	case from == "":
		fmt.Fprintf(&b, "None: no command runs to give a review its output as evidence; set `analyzers` in this file or in the repository's `%s`, such as `[%s]`.\n", config.RepoFile, config.AnalyzerExample)
	case from == c.Path:
		b.WriteString("Commands whose output is evidence for a review, from the configuration:\n\n")
	default:
		fmt.Fprintf(&b, "Commands whose output is evidence for a review, from `%s` (%s):\n\n", from, WorktreePolicy)
	}
	if len(c.Analyzers) > 0 {
		b.WriteString("| name | argv | format | timeout |\n|---|---|---|---|\n")
	}
	for _, a := range c.Analyzers {
		format := cmp.Or(string(a.Format), "detected")
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", a.Name, strings.ReplaceAll(redact.Mask(a.Command()), "|", "\\|"), format, timeout(a))
	}
	if len(c.ModelCutoffs) > 0 {
		b.WriteString("\n## Model cutoffs\n\n`gh ocdx eval history` counts for a model only the pull requests merged after its training cutoff.\n\n| model | cutoff |\n|---|---|\n")
		for _, m := range slices.Sorted(maps.Keys(c.ModelCutoffs)) {
			fmt.Fprintf(&b, "| %s | %s |\n", m, c.ModelCutoffs[m].Format(time.DateOnly))
		}
	}
	b.WriteString("\n## Providers\n\n| provider | endpoint | credential |\n|---|---|---|\n")
	for _, p := range c.UsedProviders() {
		cred := "none needed"
		if p.CredentialEnv != "" {
			cred = "`$" + p.CredentialEnv + "` (set)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", p.Name, Endpoint(getenv, p), cred)
	}
	return b.String()
}

// Endpoint is the provider's endpoint as the environment sets it, without
// any user info or query that could carry a secret.
func Endpoint(getenv func(string) string, p llm.Provider) string {
	raw := getenv(p.BaseURLEnv)
	if raw == "" {
		return p.DefaultURL
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		if strings.ContainsAny(raw, "@?#") {
			return "(set in $" + p.BaseURLEnv + ")"
		}
		return raw // e.g. OLLAMA_HOST=127.0.0.1:11434
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// CheckOnline asks each provider in use for its models, once, and checks
// every configured model against the answer: one line per model, in gh's
// style (✓ or X, as gh auth status); a model a provider does not serve
// gets the nearest it does, and a provider whose key is unset (said
// already) is not asked. It returns the lines and the number of X lines.
func CheckOnline(ctx context.Context, c *config.Config, getenv func(string) string, unset map[string]bool) (report string, bad int) {
	lists := map[string]*llm.ModelList{}
	failed := map[string]error{}
	var lines []string
	for _, km := range c.Models() {
		p := km.Model.Provider
		what := fmt.Sprintf("%s %s", km.Key, km.Model)
		if p.CredentialEnv != "" && unset[p.CredentialEnv] {
			lines = append(lines, fmt.Sprintf("- %s: not asked, %s is not set", what, p.CredentialEnv))
			continue
		}
		if lists[p.Name] == nil && failed[p.Name] == nil {
			var err error
			if lists[p.Name], err = llm.ListModels(ctx, p, getenv); err != nil {
				failed[p.Name] = err
			}
		}
		problem := ""
		if err := failed[p.Name]; err != nil {
			problem = fmt.Sprintf("asking %s (%s) for its models failed: %v", p.Name, Endpoint(getenv, p), err)
		} else if ok, err := lists[p.Name].Has(ctx, km.Model.Name); err != nil {
			problem = err.Error()
		} else if !ok {
			problem = fmt.Sprintf("%s (%s) serves no model %q", p.Name, Endpoint(getenv, p), km.Model.Name)
			names := lists[p.Name].Names
			if p.Name == "ollama" { // named without their default tag
				names = slices.Clone(names)
				for i, n := range names {
					names[i] = strings.TrimSuffix(n, ":latest")
				}
			}
			if s := text.Closest(km.Model.Name, names); s != "" {
				problem += fmt.Sprintf("; did you mean %q?", s)
			}
		}
		if problem == "" {
			lines = append(lines, "✓ "+what)
			continue
		}
		bad++
		lines = append(lines, "X "+what+": "+problem)
	}
	var b strings.Builder
	b.WriteString("Models, as their providers list them (no tokens spent):\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	return b.String(), bad
}

// ShowInvalid is an invalid file as config show --json gives it: its path
// and problems.
func ShowInvalid(e *config.Error) Shown {
	out := Shown{Path: e.Path, Problems: []shownProblem{}}
	for _, p := range e.Problems {
		out.Problems = append(out.Problems, shownProblem{p.Line, p.Column, p.Key, p.Env, p.Msg})
	}
	return out
}

// Listing is the invalid file data as it is, secrets masked, each problem
// marked under its line, those of no line (a missing key, a credential)
// after it.
func Listing(e *config.Error, data []byte) string {
	var b strings.Builder
	state := "the file is fine; what is missing is below"
	if slices.ContainsFunc(e.Problems, func(p config.Problem) bool { return p.Env == "" }) {
		state = "invalid"
	}
	fmt.Fprintf(&b, "%s (%s):\n\n", e.Path, state)
	lines := strings.Split(strings.TrimRight(redact.Mask(string(data)), "\n"), "\n")
	for i, l := range lines {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
		for _, p := range e.Problems {
			if p.Line == i+1 {
				fmt.Fprintf(&b, "      %s^ %s\n", strings.Repeat(" ", max(p.Column-1, 0)), p.Text())
			}
		}
	}
	var rest []string
	for _, p := range e.Problems {
		if p.Line == 0 || p.Line > len(lines) {
			rest = append(rest, "  - "+p.Text())
		}
	}
	if len(rest) > 0 {
		fmt.Fprintf(&b, "\nAlso:\n%s\n", strings.Join(rest, "\n"))
	}
	return b.String()
}
