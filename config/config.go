// Package config finds, reads and validates the gh-ocdx configuration
// (docs/architecture.md, Configuration): which models play which role, and the verification commands,
// optionally overridden per repository by .ocdx.json.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Example is a valid configuration. `config init`
// writes it and every configuration error shows it.
const Example = `{
  "reviewerModels": ["openai/gpt-4.1", "anthropic/claude-sonnet-4-5"],
  "commentsAnalyzerModel": "openai/gpt-4.1-mini",
  "prFixModel": "anthropic/claude-sonnet-4-5",
  "reviewPrModel": "anthropic/claude-sonnet-4-5",
  "verify": ["dx lint", "dx build all"],
  "outputTokens": {"prFixModel": 16384}
}
`

// RepoExample is a valid repository .ocdx.json.
const RepoExample = `{
  "verify": ["dx lint", "dx build all"]
}
`

// RepoFile is the name of the per-repository override, at the repository root.
const RepoFile = ".ocdx.json"

// MaxReviewers is the most reviewer models a configuration may name.
const MaxReviewers = 5

// DefaultVerify returns the verification commands used when neither the
// configuration nor the repository names any.
func DefaultVerify() []string { return []string{"dx lint", "dx build all"} }

// Config is a validated configuration with defaults applied.
type Config struct {
	Reviewers        []Model // 1..MaxReviewers, run in parallel
	CommentsAnalyzer Model
	PRFix            Model
	ReviewPR         Model    // defaults to Reviewers[0]
	Verify           []string // commands run before a fix is pushed
	// AllowApprove lets review-pr post a model's APPROVE as an approval;
	// without it (the default) an approval is posted as a comment, so that
	// a model never satisfies a required review on its own.
	AllowApprove bool
	// OutputTokens caps a role's answers, by role key ("prFixModel",
	// "reviewerModels" for every reviewer); a role absent takes the
	// client's default.
	OutputTokens map[string]int64

	Path   string // absolute path of the file read
	Legacy bool   // Path is the legacy opencode file; callers tell the user so
	// Defaults lists the optional keys absent from the file and filled in:
	// "reviewPrModel", "verify".
	Defaults []string
	// VerifyFrom names the repository .ocdx.json that Verify came from (a
	// path in a work tree, or ".ocdx.json on main at 1a2b3c4"); "" when
	// Verify is the configuration's or the default.
	VerifyFrom string
}

// Load finds, reads and validates the configuration, checking that the
// credential of every provider it uses is set in the environment. Commands
// that need the configuration call it first, before any network request, git
// command or state write. Configuration problems are *Error.
func Load(getenv func(string) string) (*Config, error) {
	loc, err := Locate(getenv)
	if err != nil {
		return nil, err
	}
	data, err := ReadFile(loc.Path)
	if err != nil {
		return nil, &Error{Path: loc.Path, Err: err}
	}
	c, problems := parse(data, getenv)
	if len(problems) > 0 {
		return nil, &Error{Path: loc.Path, Problems: problems}
	}
	c.Path, c.Legacy = loc.Path, loc.Legacy
	return c, nil
}

// ApplyRepo replaces Verify with the repository's own commands when
// repoRoot holds a .ocdx.json.
func (c *Config) ApplyRepo(repoRoot string) error {
	verify, path, err := RepoVerify(repoRoot)
	if err != nil || path == "" {
		return err
	}
	c.Verify, c.VerifyFrom = verify, path
	return nil
}

// ApplyPolicy replaces Verify with the commands of a repository's
// .ocdx.json read elsewhere than a work tree; where names it for the user.
func (c *Config) ApplyPolicy(verify []string, where string) {
	c.Verify, c.VerifyFrom = verify, where
}

// RepoPolicy validates the text of a repository's .ocdx.json read from
// where (".ocdx.json on main at 1a2b3c4") and returns its verify commands.
// Problems in it are *Error naming where.
func RepoPolicy(text []byte, where string) ([]string, error) {
	verify, problems := parseRepo(text)
	if len(problems) > 0 {
		return nil, &Error{Path: where, Problems: problems, Repo: true, Branch: true}
	}
	return verify, nil
}

// RepoVerify reads repoRoot/.ocdx.json. It returns the verify commands and
// the file's absolute path, or a nil slice and "" when there is no such file.
// Problems in the file are *Error.
func RepoVerify(repoRoot string) (verify []string, path string, err error) {
	path, err = filepath.Abs(filepath.Join(repoRoot, RepoFile))
	if err != nil {
		return nil, "", err
	}
	data, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", &Error{Path: path, Err: err, Repo: true}
	}
	verify, problems := parseRepo(data)
	if len(problems) > 0 {
		return nil, "", &Error{Path: path, Problems: problems, Repo: true}
	}
	return verify, path, nil
}

// UsedProviders returns the providers the configuration's models use, once
// each, in the order they first appear.
func (c *Config) UsedProviders() []Provider {
	var out []Provider
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
	Model Model
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
	model Model
}

func (c *Config) roles() []role {
	var rs []role
	for i, m := range c.Reviewers {
		rs = append(rs, role{fmt.Sprintf("reviewerModels[%d]", i), m})
	}
	return append(rs, role{"commentsAnalyzerModel", c.CommentsAnalyzer},
		role{"prFixModel", c.PRFix}, role{"reviewPrModel", c.ReviewPR})
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
