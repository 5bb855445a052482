package cmdutil

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/cli/go-gh/v2/pkg/auth"
	"github.com/cli/go-gh/v2/pkg/repository"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/progress"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
)

// The factory of Deps: each method gives the collaborator a test set, or
// the real one. The real ones read the process only through Getenv and
// WorkDir, as gh does: GH_HOST, GH_REPO and the token variables first,
// then gh's own configuration.

// workDir is the directory the verb works in.
func (d *Deps) Dir() (string, error) {
	if d.WorkDir != "" {
		return d.WorkDir, nil
	}
	return os.Getwd()
}

// DefaultHost is the host of a repository named OWNER/REPO: GH_HOST, else
// gh's default host.
func (d *Deps) DefaultHost() string {
	if h := d.Getenv("GH_HOST"); h != "" {
		return h
	}
	h, _ := auth.DefaultHost()
	return h
}

// baseRepo is the repository when -R names none: GH_REPO's, else the git
// remotes' of the working directory, as gh picks it.
func (d *Deps) baseRepo() (repository.Repository, error) {
	if v := d.Getenv("GH_REPO"); v != "" {
		r, err := repository.ParseWithHost(v, d.DefaultHost())
		if err != nil {
			return r, fmt.Errorf("GH_REPO=%q: %v: set it to OWNER/REPO or HOST/OWNER/REPO", v, err)
		}
		return r, nil
	}
	if d.BaseRepo != nil {
		return d.BaseRepo()
	}
	return repository.Current()
}

// store is the state file.
func (d *Deps) OpenStore() (*state.Store, error) {
	if d.Store != nil {
		return d.Store()
	}
	path, err := state.Path(d.Getenv)
	if err != nil {
		return nil, err
	}
	return state.New(path, &state.Options{Now: d.Clock, Warn: d.IO.ErrOut}), nil
}

// prompter asks on the terminal; check IOStreams.CanPrompt first.
func (d *Deps) NewPrompter(ctx context.Context) Prompter {
	if d.Prompter != nil {
		return d.Prompter(ctx)
	}
	return newPrompter(ctx, d.IO)
}

// Clock is the time of what a verb records: Deps.Now, else the time.
func (d *Deps) Clock() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// Timeouts a user may set: a local model can think for minutes before its
// first token, and a slow GitHub Enterprise take more than a minute.
const (
	envModelTimeout  = "OCDX_MODEL_TIMEOUT"  // a model answer's inactivity deadline: no data for this long cuts the attempt (default 2m)
	envGitHubTimeout = "OCDX_GITHUB_TIMEOUT" // per GitHub request (default 60s)
)

// envDuration reads a timeout setting; unset is 0, the client's default.
func envDuration(d *Deps, name string) (time.Duration, error) {
	v := d.Getenv(name)
	if v == "" {
		return 0, nil
	}
	t, err := time.ParseDuration(v)
	if err != nil || t <= 0 {
		return 0, fmt.Errorf("%s=%q is not a duration: set it to a value such as 90s or 10m, or unset it for the default", name, v)
	}
	return t, nil
}

// checkTimeouts validates both settings, before any request is made.
func checkTimeouts(d *Deps) error {
	for _, name := range []string{envModelTimeout, envGitHubTimeout} {
		if _, err := envDuration(d, name); err != nil {
			return err
		}
	}
	return nil
}

// newModel builds the provider/model client of role with the user's
// timeout and the role's output cap (0: the client's default); its calls,
// retries and streamed tokens are shown on stderr as they run.
func newModel(d *Deps, role, name string, outputCap int64) (*progress.Model, error) {
	t, err := envDuration(d, envModelTimeout)
	if err != nil {
		return nil, err
	}
	registerCredentials(d)
	m := progress.NewModel(d.prog(), role, name, d.Log, d.Warn)
	o := llm.Options{Timeout: t, MaxTokens: outputCap, Backoff: d.Backoff, OnRetry: m.Retried, Progress: m.Streamed}
	if d.Model != nil {
		m.Model, err = d.Model(name, o)
	} else {
		m.Model, err = llm.New(name, d.Getenv, o)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// RunModels build the models of one invocation of a verb, all drawing on
// its one token budget (docs/architecture.md, Budget and costs): every
// verb builds its models here, so that none runs a model outside it.
type RunModels struct {
	d   *Deps
	cfg *config.Config
	// Budget is the invocation's: --max-tokens, else the configuration's
	// maxTokens; nil when neither sets one.
	Budget *llm.Budget
}

// NewRunModels are the models of an invocation given --max-tokens
// (0: the configuration's maxTokens, if any).
func NewRunModels(d *Deps, cfg *config.Config, maxTokens int64) *RunModels {
	m := &RunModels{d: d, cfg: cfg}
	if max := cmp.Or(maxTokens, cfg.MaxTokens); max > 0 {
		m.Budget = llm.NewBudget(max)
	}
	return m
}

// Model builds role's model name, with the output cap of the
// configuration's key; show sets how its calls are shown (tools listed).
// The budget wraps it outermost, so that an agent sees the budget it draws
// on (and reserves its answer) and a call it refuses is never shown as
// started.
func (m *RunModels) Model(role, name, key string, show ...func(*progress.Model)) (llm.Model, error) {
	out := m.cfg.OutputCap(key)
	mod, err := newModel(m.d, role, name, out)
	if err != nil {
		return nil, err
	}
	for _, f := range show {
		f(mod)
	}
	if m.Budget == nil {
		return mod, nil
	}
	return m.Budget.Wrap(mod, cmp.Or(out, llm.DefaultMaxTokens)), nil
}

// Crew is the reviewers of the configuration and the verifier (verifier,
// else the configuration's verifierModel; nil when neither names one), as
// review and review-loop run them.
func (m *RunModels) Crew(verifier string) ([]roles.Role, *roles.Role, error) {
	var reviewers []roles.Role
	for i, r := range m.cfg.Reviewers {
		name, key := fmt.Sprintf("reviewer-%d", i+1), fmt.Sprintf("reviewerModels[%d]", i)
		mod, err := m.Model(name, r.String(), key)
		if err != nil {
			return nil, nil, err
		}
		reviewers = append(reviewers, roles.Role{Name: name, Key: key, Model: r.String(), LLM: mod})
	}
	name := cmp.Or(verifier, verifierOf(m.cfg))
	if name == "" {
		return reviewers, nil, nil
	}
	vm, err := m.Model("verifier", name, "verifierModel")
	if err != nil {
		return nil, nil, err
	}
	return reviewers, &roles.Role{Name: "verifier", Key: "verifierModel", Model: name, LLM: vm}, nil
}

// WithTools lists a model's tool calls as they run.
func WithTools(m *progress.Model) { m.Tools = true }

// Reserve is a converse.Asker's Reserve: nil without a budget.
func (m *RunModels) Reserve() func(string, *llm.Agent) error {
	if m.Budget == nil {
		return nil
	}
	return func(what string, a *llm.Agent) error { return m.Budget.Reserve(what, a) }
}

// Spent says what the invocation spent of its budget (report.BudgetStatus);
// "" without one.
func (m *RunModels) Spent() string {
	if m.Budget == nil {
		return ""
	}
	return report.BudgetStatus{MaxTokens: m.Budget.Max, Spent: m.Budget.Spent()}.String()
}

// prog is the live display of model calls on stderr, built on first
// use.
func (d *Deps) prog() *progress.Display {
	d.progressMu.Lock()
	defer d.progressMu.Unlock()
	if d.progress == nil {
		d.progress = progress.New(d.IO.ErrOut, 0, nil)
	}
	return d.progress
}

// gitHub builds the GitHub client for host with the user's token and
// timeout.
func (d *Deps) GitHubClient(host string) (*github.Client, error) {
	registerCredentials(d)
	if d.GitHub != nil {
		return d.GitHub(host)
	}
	t, err := envDuration(d, envGitHubTimeout)
	if err != nil {
		return nil, err
	}
	return github.New(host, github.Options{Token: d.githubToken(host), Timeout: t, Backoff: d.Backoff})
}

// githubToken is the token gh would send to host: GH_TOKEN or GITHUB_TOKEN
// for github.com and its tenancies, GH_ENTERPRISE_TOKEN or
// GITHUB_ENTERPRISE_TOKEN for an Enterprise Server, else gh's stored login.
// It is registered so that a keyring token, which no variable or file
// shows, is hidden as well.
func (d *Deps) githubToken(host string) string {
	names := []string{"GH_TOKEN", "GITHUB_TOKEN"}
	if auth.IsEnterprise(host) {
		names = []string{"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}
	}
	var tok string
	for _, n := range names {
		if tok = d.Getenv(n); tok != "" {
			break
		}
	}
	if tok == "" {
		tok, _ = auth.TokenForHost(host)
	}
	redact.Register(tok)
	return tok
}

// verifierOf is the configuration's verifierModel; "" when it sets none.
func verifierOf(cfg *config.Config) string {
	if cfg.Verifier.Provider.Name == "" {
		return ""
	}
	return cfg.Verifier.String()
}
