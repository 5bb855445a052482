// Package config finds, reads and validates the gh-ocdx configuration
// (docs/architecture.md, Configuration): which models play which role, and the verification commands,
// optionally overridden per repository by .ocdx.json.
package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/llm"
)

// Example is a valid configuration. `config init` writes it, with the
// verify commands of the repository it runs in (InitFile), and every
// configuration error shows it.
const Example = `{
  "reviewerModels": ["openai/gpt-4.1", "anthropic/claude-sonnet-4-5"],
  "commentsAnalyzerModel": "openai/gpt-4.1-mini",
  "prFixModel": "anthropic/claude-sonnet-4-5",
  "reviewPrModel": "anthropic/claude-sonnet-4-5",
  "verify": ["go vet ./...", "go test ./..."],
  "outputTokens": {"prFixModel": 16384}
}
`

// RepoExample is a valid repository .ocdx.json.
const RepoExample = `{
  "verify": ["make lint", "make test"],
  "instructions": "Errors are wrapped with the operation that failed.",
  "paths": [{"glob": "api/**", "instructions": "Every handler checks the caller's permission."}],
  "ignore": ["testdata/**"],
  "ignoreDefaults": true
}
`

// RepoFile is the name of the per-repository override, at the repository root.
const RepoFile = ".ocdx.json"

// MaxReviewers is the most reviewer models a configuration may name.
const MaxReviewers = 5

// Config is a validated configuration with defaults applied.
type Config struct {
	Reviewers        []llm.ModelName // 1..MaxReviewers, run in parallel
	CommentsAnalyzer llm.ModelName
	PRFix            llm.ModelName
	ReviewPR         llm.ModelName // defaults to Reviewers[0]
	// Reply answers people in gh-ocdx's threads (gh ocdx reply); defaults
	// to ReviewPR.
	Reply llm.ModelName
	// Describe writes gh ocdx describe's description; defaults to
	// CommentsAnalyzer.
	Describe llm.ModelName
	// DescribeFirst ("describe": true) opens review-loop's first report
	// on a PR with that description; a repository's .ocdx.json may ask
	// for it too (DescribesFirst).
	DescribeFirst bool
	// ComplianceFindings ("describe": {"compliance": "finding"}) makes a
	// linked issue's requirement the description finds not met a P2
	// finding of the first report (ComplianceAsFindings).
	ComplianceFindings bool
	// MaxReplies bounds the replies one reply run answers; 0: the default
	// (DefaultMaxReplies).
	MaxReplies int
	// Verifier checks the findings a single reviewer raised; the zero
	// ModelName when verifierModel is not set: no verifier runs.
	Verifier llm.ModelName
	// Verify are the commands run before a fix is pushed; none when
	// neither the file nor the repository sets any, and then nothing is
	// pushed (there is no default: no command exists in every repository).
	Verify []string
	// Analyzers are the commands whose output is evidence for a review
	// (docs/architecture.md, Evidence); the base branch's .ocdx.json's
	// replace them when it sets any.
	Analyzers []Analyzer
	// AnalyzersFrom names the .ocdx.json Analyzers came from, as
	// VerifyFrom; "" when they are the configuration's.
	AnalyzersFrom string
	// AllowApprove lets review-pr post a model's APPROVE as an approval;
	// without it (the default) an approval is posted as a comment, so that
	// a model never satisfies a required review on its own.
	AllowApprove bool
	// InlinePriorities are the priorities of the findings review-loop
	// posts on their lines; the others are in the review's body only.
	InlinePriorities []string
	// MaxInlineComments bounds a round's inline comments; 0: the default
	// (DefaultMaxInlineComments).
	MaxInlineComments int
	// MaxTokens is the token budget of a review-loop run (input and output
	// of every model call together); 0: none.
	MaxTokens int64
	// Effort is the tier review-loop and review run at unless a flag says
	// (docs/architecture.md, Effort tiers); "" is auto.
	Effort effort.Tier
	// Prices are the prices of models ("provider/model" as configured), for
	// the estimated costs in reports; a model without one shows no cost.
	Prices map[string]Price
	// ModelCutoffs are models' training cutoffs ("provider/model" as
	// configured): gh ocdx eval history counts for a model only the pull
	// requests merged after its cutoff.
	ModelCutoffs map[string]time.Time
	// OutputTokens caps a role's answers, by role key ("prFixModel",
	// "reviewerModels" for every reviewer); a role absent takes the
	// client's default.
	OutputTokens map[string]int64

	Path   string // absolute path of the file read
	Legacy bool   // Path is the legacy opencode file; callers tell the user so
	// Defaults lists the optional keys absent from the file: "reviewPrModel"
	// (filled in), "verify" (left empty).
	Defaults []string
	// VerifyFrom names the repository .ocdx.json that Verify came from (a
	// path in a work tree, or ".ocdx.json on main at 1a2b3c4"); "" when
	// Verify is the configuration's, or empty.
	VerifyFrom string
	// Policy is the repository's review policy once applied; nil before
	// (the defaults).
	Policy *Policy
}

// LoadFor finds, reads and validates the configuration, checking that the
// credential of every provider it uses is set in the environment. Commands
// that need the configuration call it first, before any network request, git
// command or state write. Configuration problems are *Error.
//
// A command that uses only some roles names them: the file is validated
// whole, but only the credentials of the roles whose key (such as
// "reviewPrModel"; "reviewerModels" for every reviewer) uses returns true
// are required. A nil uses requires every role's.
func LoadFor(getenv func(string) string, uses func(key string) bool) (*Config, error) {
	loc, err := Locate(getenv)
	if err != nil {
		return nil, err
	}
	data, err := ReadFile(loc.Path)
	if err != nil {
		return nil, &Error{Path: loc.Path, Err: err}
	}
	c, problems := parse(data, getenv, uses)
	if len(problems) > 0 {
		return nil, &Error{Path: loc.Path, Problems: problems}
	}
	c.Path, c.Legacy = loc.Path, loc.Legacy
	return c, nil
}

// ApplyRepo applies the policy of the work tree at repoRoot (its
// .ocdx.json and REVIEW.md).
func (c *Config) ApplyRepo(repoRoot string) error {
	p, path, err := ReadPolicy(repoRoot)
	if err != nil {
		return err
	}
	c.ApplyPolicy(p, path)
	return nil
}

// ApplyPolicy makes p the repository policy; its verify commands and
// analyzers, when it sets any, replace the configuration's. where names the .ocdx.json for the
// user.
func (c *Config) ApplyPolicy(p *Policy, where string) {
	c.Policy = p
	if len(p.Verify) > 0 {
		c.Verify, c.VerifyFrom = p.Verify, where
	}
	if len(p.Analyzers) > 0 {
		c.Analyzers, c.AnalyzersFrom = p.Analyzers, where
	}
}

// DescribesFirst reports whether review-loop's first report on a PR opens
// with describe's description: the user's configuration or the base
// branch's .ocdx.json says so.
func (c *Config) DescribesFirst() bool {
	return c.DescribeFirst || c.Policy != nil && c.Policy.DescribeFirst
}

// ComplianceAsFindings reports whether a requirement the description finds
// not met is a finding: the user's configuration or the base branch's
// .ocdx.json says so, and a team opts in to blocking on it.
func (c *Config) ComplianceAsFindings() bool {
	return c.ComplianceFindings || c.Policy != nil && c.Policy.ComplianceFindings
}

// RepoPolicy validates the text of a repository's .ocdx.json read from a
// branch on GitHub (where: ".ocdx.json on main at 1a2b3c4"). Problems in it
// are *Error naming where.
func RepoPolicy(text []byte, where string) (*Policy, error) {
	return ParsePolicy(text, where, true)
}

// RepoVerify reads repoRoot/.ocdx.json. It returns the verify commands and
// the file's absolute path, or a nil slice and "" when there is no such file.
// Problems in the file are *Error.
func RepoVerify(repoRoot string) (verify []string, path string, err error) {
	p, path, err := ReadPolicy(repoRoot)
	if err != nil || path == "" {
		return nil, "", err
	}
	return p.Verify, path, nil
}

// Price is what a model's tokens cost, in dollars per million tokens.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cachedInput"` // input read from the provider's cache; default Input
	Output      float64 `json:"output"`
}

// Cost estimates in dollars the cost of input tokens (cached of them read
// from the cache) and output tokens.
func (p Price) Cost(input, cached, output int64) float64 {
	return (float64(input-cached)*p.Input + float64(cached)*p.CachedInput + float64(output)*p.Output) / 1e6
}

// UsedProviders returns the providers the configuration's models use, once
// each, in the order they first appear.
func (c *Config) UsedProviders() []llm.Provider {
	var out []llm.Provider
	seen := map[string]bool{}
	for _, m := range c.roles() {
		if !seen[m.model.Provider.Name] {
			seen[m.model.Provider.Name] = true
			out = append(out, m.model.Provider)
		}
	}
	return out
}

// OutputCap is the output cap of the role named by key ("prFixModel",
// "reviewerModels[1]"); 0 when the configuration sets none.
func (c *Config) OutputCap(key string) int64 {
	role, _, _ := strings.Cut(key, "[")
	return c.OutputTokens[role]
}

// KeyedModel is a configured model and the key that names it.
type KeyedModel struct {
	Key   string // e.g. "reviewerModels[1]", "prFixModel"
	Model llm.ModelName
}

// Models lists every configured model with its key, in file order.
func (c *Config) Models() []KeyedModel {
	var out []KeyedModel
	for _, r := range c.roles() {
		out = append(out, KeyedModel{Key: r.key, Model: r.model})
	}
	return out
}

type role struct {
	key   string
	model llm.ModelName
}

func (c *Config) roles() []role {
	var rs []role
	for i, m := range c.Reviewers {
		rs = append(rs, role{fmt.Sprintf("reviewerModels[%d]", i), m})
	}
	rs = append(rs, role{"commentsAnalyzerModel", c.CommentsAnalyzer},
		role{"prFixModel", c.PRFix}, role{"reviewPrModel", c.ReviewPR})
	if c.Reply.Provider.Name != "" && c.Reply.String() != c.ReviewPR.String() {
		rs = append(rs, role{"replyModel", c.Reply}) // its key is needed only when it is another model
	}
	if c.Describe.Provider.Name != "" && c.Describe.String() != c.CommentsAnalyzer.String() {
		rs = append(rs, role{"describeModel", c.Describe}) // its key is needed only when it is another model
	}
	if c.Verifier.Provider.Name != "" {
		rs = append(rs, role{"verifierModel", c.Verifier}) // its key is needed only when it is set
	}
	return rs
}

// missingCredentials reports each provider credential the models need that
// the environment lacks, naming the models that need it.
func missingCredentials(roles []role, getenv func(string) string) []Problem {
	var envs []string
	models := map[string][]string{} // env -> the models that need it, in order
	keys := map[string][]string{}   // model -> the keys naming it
	for _, r := range roles {
		env, model := r.model.Provider.CredentialEnv, r.model.String()
		if env == "" || strings.TrimSpace(getenv(env)) != "" {
			continue
		}
		if models[env] == nil {
			envs = append(envs, env)
		}
		if keys[model] == nil {
			models[env] = append(models[env], model)
		}
		keys[model] = append(keys[model], r.key)
	}
	var ps []Problem
	for _, env := range envs {
		var who []string
		for _, m := range models[env] {
			who = append(who, fmt.Sprintf("%s (%s)", m, strings.Join(keys[m], ", ")))
		}
		verb := "needs"
		if len(who) > 1 {
			verb = "need"
		}
		ps = append(ps, Problem{Env: env, Msg: fmt.Sprintf(
			"%s is not set, and %s %s it; export %s=<your API key>",
			env, strings.Join(who, ", "), verb, env)})
	}
	return ps
}

// DefaultInlinePriorities: the findings that block converging go on their
// lines; suggestions (P3) stay in the report unless a user asks.
func DefaultInlinePriorities() []string { return []string{"P0", "P1", "P2"} }

// DefaultMaxReplies is how many replies one gh ocdx reply run answers at
// most, unless maxReplies says otherwise.
const DefaultMaxReplies = 10

// DefaultMaxInlineComments is how many inline comments a round posts at
// most; the other findings are listed in the review's body.
const DefaultMaxInlineComments = 10
