package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/llm"
)

// loadConfig loads and validates the configuration for a verb that needs it;
// call it before any network request, git command or state write.
func loadConfig(d *Deps) (*config.Config, error) { return loadConfigFor(d, nil) }

// usesRole is a loadConfigFor filter: the roles keys names.
func usesRole(keys ...string) func(key string) bool {
	return func(key string) bool { return slices.Contains(keys, key) }
}

// loadConfigFor is loadConfig for a verb that uses only the roles uses
// names: the others' credentials are not required (config.LoadFor).
func loadConfigFor(d *Deps, uses func(key string) bool) (*config.Config, error) {
	c, err := config.LoadFor(d.Getenv, uses)
	if err != nil {
		return nil, err
	}
	if err := checkTimeouts(d); err != nil {
		return nil, err
	}
	if c.Legacy {
		msg := "reading the legacy configuration " + c.Path
		if loc, err := config.Locate(d.Getenv); err == nil {
			msg += "; move it to " + loc.Preferred + " to silence this"
		}
		d.info("%s", msg)
	}
	d.Log.Debug("configuration loaded", "path", c.Path)
	return c, nil
}

// ConfigInitOptions are the parsed arguments of config init.
type ConfigInitOptions struct {
	WorkDir  string   // its repository suggests the verify commands
	Prompter Prompter // nil: no terminal, nothing is asked
}

func runConfigInit(ctx context.Context, d *Deps, args []string) error {
	opts, err := parseConfigInit(d, args)
	if err != nil {
		return err
	}
	if opts.WorkDir, err = d.workDir(); err != nil {
		return err
	}
	if d.IO.CanPrompt() {
		opts.Prompter = d.prompter(ctx)
	}
	return configInit(ctx, d, opts)
}

func parseConfigInit(d *Deps, args []string) (*ConfigInitOptions, error) {
	fs := newFlagSet("config init", "gh ocdx config init",
		`Write an example configuration to $OCDX_CONFIG, else
$XDG_CONFIG_HOME/gh-ocdx/config.json (default ~/.config/gh-ocdx/config.json),
then tell what to edit and which credentials to export. An existing file is
never overwritten.

Its verify commands, which check a fix before it is pushed, are the ones the
current repository names: its Makefile's lint, test, check and build targets,
else go vet and go test for go.mod, package.json's lint, test and build
scripts (with the package manager of its lockfile), cargo clippy and cargo
test for Cargo.toml, pyproject.toml's ruff, mypy and pytest. In a terminal
they are proposed first, and asked for when nothing names any.

When ollama answers at $OLLAMA_HOST (default http://127.0.0.1:11434), its
first model is offered for every role: a review that needs no API key.`)
	if err := fs.parse(d, args, 0); err != nil {
		return nil, err
	}
	return &ConfigInitOptions{}, nil
}

func configInit(ctx context.Context, d *Deps, opts *ConfigInitOptions) error {
	loc, err := config.Locate(d.Getenv)
	if err != nil {
		return err
	}
	path := loc.Preferred
	if _, err := os.Lstat(path); err == nil {
		return existingConfig(path) // before asking anything
	}
	local, err := offerOllama(ctx, d, opts.Prompter)
	if err != nil {
		return err
	}
	verifyCmds, verifySaid, err := initVerify(d, opts.Prompter, opts.WorkDir)
	if err != nil {
		return err
	}
	file := config.InitFile(verifyCmds)
	if local != "" {
		file = config.LocalFile(local, verifyCmds)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cannot create the configuration directory: %w", err)
	}
	// O_EXCL: refuse to overwrite, even a file created since we looked.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return existingConfig(path)
	}
	if err != nil {
		return fmt.Errorf("cannot create the configuration: %w", err)
	}
	_, err = f.WriteString(file)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path) // a half-written file would only fail validation later
		return fmt.Errorf("cannot write the configuration: %w", err)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Wrote %s\n\nNext steps:\n", path)
	if local != "" {
		fmt.Fprintf(&b, "  1. It names ollama/%s, served by ollama at %s, in every role: gh ocdx review works now, without a key. To use other models, name each role's as provider/model (providers: %s).\n",
			local, endpoint(d, llm.Providers["ollama"]), strings.Join(sortedProviderNames(), ", "))
	} else {
		fmt.Fprintf(&b, "  1. Edit it: name the model of each role as provider/model (providers: %s).\n", strings.Join(sortedProviderNames(), ", "))
	}
	b.WriteString("  2. Export the API key of each provider you use:\n")
	var keyless []string
	for _, name := range sortedProviderNames() {
		env := llm.Providers[name].CredentialEnv
		if env == "" {
			keyless = append(keyless, name+"/")
			continue
		}
		state := "not set yet"
		if d.Getenv(env) != "" {
			state = "already set"
		}
		fmt.Fprintf(&b, "       %-30s # for %s/ models (%s)\n", "export "+env+"=...", name, state)
	}
	if len(keyless) > 0 {
		fmt.Fprintf(&b, "     %s models need no key.\n", strings.Join(keyless, ", "))
	}
	if len(verifyCmds) > 0 {
		fmt.Fprintf(&b, "  3. Check the verify commands, %s: %s. They apply in every repository whose %s sets no \"verify\"; commit them there as {\"verify\": [...]} to share them.\n",
			verifySaid, strings.Join(verifyCmds, "; "), config.RepoFile)
	} else {
		fmt.Fprintf(&b, "  3. Add \"verify\": the commands that check a fix before it is pushed (%s); fix and review-loop push nothing without them. A repository's %s can set them too.\n", verifySaid, config.RepoFile)
	}
	b.WriteString("  4. Check it: gh ocdx config validate\n")
	if loc.Legacy {
		fmt.Fprintf(&b, "\nThe legacy configuration %s is no longer read now that this file exists; copy its models here.\n", loc.Path)
	}
	fmt.Fprint(d.IO.Out, b.String())
	return nil
}

// ollamaProbe bounds config init's question to a local ollama: one that
// answers at all answers a models list at once, and a newcomer without one
// should not wait for a connection that will not come.
const ollamaProbe = 2 * time.Second

// offerOllama is the model config init names in every role when an ollama
// answers at $OLLAMA_HOST (default http://127.0.0.1:11434) with a models
// list: its first, without the default tag. In a terminal it is offered and
// may be declined, or another listed model chosen; without one, it is
// taken (the output says so). "" when none answers or none is chosen.
func offerOllama(ctx context.Context, d *Deps, ask Prompter) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, ollamaProbe)
	defer cancel()
	p := llm.Providers["ollama"]
	list, err := llm.ListModels(ctx, p, d.Getenv)
	if err != nil || len(list.Names) == 0 {
		d.Log.Debug("no ollama to offer", "at", endpoint(d, p), "err", err)
		return "", nil
	}
	names := make([]string, len(list.Names))
	for i, n := range list.Names {
		names[i] = strings.TrimSuffix(n, ":latest")
	}
	if ask == nil {
		return names[0], nil
	}
	shown := names[:min(len(names), 9)]
	fmt.Fprintf(d.IO.ErrOut, "Ollama answers at %s: a review can run on its models, without an API key.\n", endpoint(d, p))
	options := make([]string, 0, len(shown)+1)
	for _, n := range shown {
		options = append(options, "ollama/"+n+" in every role")
	}
	options = append(options, "No, models of a provider with an API key")
	i, err := ask.Select("Which models should gh-ocdx use?", options)
	if err != nil || i >= len(shown) {
		return "", err
	}
	return shown[i], nil
}

func existingConfig(path string) error {
	return fmt.Errorf("a configuration already exists at %s and was left as it is; see it with 'gh ocdx config show', check it with 'gh ocdx config validate', or delete it first to start over", path)
}

// ConfigShowOptions are the parsed arguments of config show.
type ConfigShowOptions struct {
	Export  *exporter // --json, --jq, --template; nil: Markdown
	WorkDir string    // its repository's .ocdx.json applies
}

func runConfigShow(_ context.Context, d *Deps, args []string) error {
	opts, err := parseConfigShow(d, args)
	if err != nil {
		return err
	}
	if opts.WorkDir, err = d.workDir(); err != nil {
		return err
	}
	return configShow(d, opts)
}

func parseConfigShow(d *Deps, args []string) (*ConfigShowOptions, error) {
	opts := &ConfigShowOptions{}
	fs := newFlagSet("config show", "gh ocdx config show [--json [fields]] [--jq EXPR | --template T]",
		`Print the configuration in effect, with defaults applied: the file it was
read from, the model of each role, the verify commands (the current
working tree's .ocdx.json overrides them; for a pull request, review-loop and
fix read .ocdx.json from its base branch instead) and the providers' endpoints.
Credentials are never printed, only the names of their variables. An
invalid file is shown as it is, each problem marked under its line, and
the command exits 1.`)
	jf := addJSONFlags(fs, configJSON{})
	if err := fs.parse(d, jf.args(args), 0); err != nil {
		return nil, err
	}
	var err error
	opts.Export, err = jf.exporter(fs)
	return opts, err
}

func configShow(d *Deps, opts *ConfigShowOptions) error {
	c, err := loadConfig(d)
	var ce *config.Error
	if errors.As(err, &ce) && len(ce.Problems) > 0 {
		return showInvalid(d, opts, ce)
	}
	if err != nil {
		return err
	}
	if root := findRepoRoot(opts.WorkDir); root != "" {
		if err := c.ApplyRepo(root); err != nil {
			return err
		}
	}
	if opts.Export != nil {
		return opts.Export.write(d, showJSON(d, c))
	}
	return printMarkdown(d, showMarkdown(d, c))
}

// configJSON is the output of config show --json: the keys of the file with
// defaults applied, and where things came from.
type configJSON struct {
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
	Providers             []providerJSON          `json:"providers"`
	// Valid is false for a file that is not a valid configuration: then
	// only path and problems are set.
	Valid    bool          `json:"valid"`
	Problems []problemJSON `json:"problems"`
}

// problemJSON is one problem of an invalid configuration file.
type problemJSON struct {
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Key     string `json:"key,omitempty"`
	Env     string `json:"env,omitempty"`
	Message string `json:"message"`
}

type providerJSON struct {
	Name          string `json:"name"`
	Endpoint      string `json:"endpoint"`
	CredentialEnv string `json:"credentialEnv,omitempty"`
}

func showJSON(d *Deps, c *config.Config) configJSON {
	out := configJSON{
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
		Providers:             []providerJSON{},
		Valid:                 true,
		Problems:              []problemJSON{},
	}
	for _, m := range c.Reviewers {
		out.ReviewerModels = append(out.ReviewerModels, m.String())
	}
	if c.Verifier.Provider.Name != "" {
		out.VerifierModel = c.Verifier.String()
	}
	for _, p := range c.UsedProviders() {
		out.Providers = append(out.Providers, providerJSON{Name: p.Name, Endpoint: endpoint(d, p), CredentialEnv: p.CredentialEnv})
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

// worktreePolicy labels the .ocdx.json that config show and validate read.
const worktreePolicy = "this working tree's .ocdx.json; for a pull request, review-loop and fix read the one on its base branch"

func showMarkdown(d *Deps, c *config.Config) string {
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
		fmt.Fprintf(&b, "Commands run before a fix is pushed, from `%s` (%s):\n\n", from, worktreePolicy)
	}
	for _, v := range c.Verify {
		fmt.Fprintf(&b, "- `%s`\n", v)
	}
	b.WriteString("\n## Providers\n\n| provider | endpoint | credential |\n|---|---|---|\n")
	for _, p := range c.UsedProviders() {
		cred := "none needed"
		if p.CredentialEnv != "" {
			cred = "`$" + p.CredentialEnv + "` (set)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", p.Name, endpoint(d, p), cred)
	}
	return b.String()
}

// endpoint is the provider's endpoint as the environment sets it, without
// any user info or query that could carry a secret.
func endpoint(d *Deps, p llm.Provider) string {
	raw := d.Getenv(p.BaseURLEnv)
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

// ConfigValidateOptions are the parsed arguments of config validate.
type ConfigValidateOptions struct {
	WorkDir string // its repository's .ocdx.json is checked too
	Online  bool   // ask each provider whether the models exist
}

func runConfigValidate(ctx context.Context, d *Deps, args []string) error {
	opts, err := parseConfigValidate(d, args)
	if err != nil {
		return err
	}
	if opts.WorkDir, err = d.workDir(); err != nil {
		return err
	}
	return configValidate(ctx, d, opts)
}

func parseConfigValidate(d *Deps, args []string) (*ConfigValidateOptions, error) {
	opts := &ConfigValidateOptions{}
	fs := newFlagSet("config validate", "gh ocdx config validate [--online]",
		`Check the configuration, the credentials its models need, and the current
repository's .ocdx.json if it has one. With --online, also ask each
provider's models endpoint whether every configured model exists and the
key may list it (no tokens are spent). Exit 0 when all is valid; otherwise
exit 1 and list every problem found.`)
	fs.BoolVar(&opts.Online, "online", false, "Also ask each provider whether the configured models exist")
	if err := fs.parse(d, args, 0); err != nil {
		return nil, err
	}
	return opts, nil
}

// configValidate reports every problem it can find in one pass: the
// credentials the models need, the verify programs, and with Online each
// model as its provider lists it; the X lines first, the verdict last.
// Only a file that cannot be read as a configuration (its syntax, its
// keys, a repository .ocdx.json alike) stops it first, every problem of
// that file said with an example.
func configValidate(ctx context.Context, d *Deps, opts *ConfigValidateOptions) error {
	c, missing, err := loadForValidate(d)
	if err != nil {
		return err
	}
	var valid []string
	if root := findRepoRoot(opts.WorkDir); root != "" {
		_, path, err := config.RepoVerify(root)
		if err != nil {
			return err
		}
		if path != "" {
			valid = append(valid, path+" ("+worktreePolicy+")")
		}
	}
	var problems []string
	unset := map[string]bool{}
	for _, p := range missing {
		problems = append(problems, problemText(p))
		unset[p.Env] = true
	}
	problems = append(problems, verifyProblemsFor(d, c, opts.WorkDir)...)
	for _, p := range problems {
		fmt.Fprintf(d.IO.Out, "X %s\n", p)
	}
	bad := len(problems)
	if opts.Online {
		bad += validateOnline(ctx, d, c, unset)
	}
	if bad > 0 {
		fmt.Fprintf(d.IO.Out, "X %s: %s\n", c.Path, text.Plural(bad, "problem"))
		return errShown
	}
	for _, p := range append([]string{c.Path}, valid...) {
		fmt.Fprintf(d.IO.Out, "✓ %s is valid\n", p)
	}
	return nil
}

// loadForValidate loads the configuration as every verb would, except that
// a missing credential is a problem to list beside the others, not the end
// of the check: the file is fine, the shell lacks a key.
func loadForValidate(d *Deps) (*config.Config, []config.Problem, error) {
	c, err := loadConfig(d)
	var ce *config.Error
	if err == nil || !errors.As(err, &ce) || ce.Err != nil || ce.Repo ||
		slices.ContainsFunc(ce.Problems, func(p config.Problem) bool { return p.Env == "" }) {
		return c, nil, err
	}
	c, err = loadConfigFor(d, func(string) bool { return false })
	return c, ce.Problems, err
}

// validateOnline asks each provider in use for its models, once, and checks
// every configured model against the answer: one line per model, in gh's
// style (✓ or X, as gh auth status); a model a provider does not serve
// gets the nearest it does, and a provider whose key is unset (said
// already) is not asked. It returns the number of X lines.
func validateOnline(ctx context.Context, d *Deps, c *config.Config, unset map[string]bool) (bad int) {
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
			if lists[p.Name], err = llm.ListModels(ctx, p, d.Getenv); err != nil {
				failed[p.Name] = err
			}
		}
		problem := ""
		if err := failed[p.Name]; err != nil {
			problem = fmt.Sprintf("asking %s (%s) for its models failed: %v", p.Name, endpoint(d, p), err)
		} else if ok, err := lists[p.Name].Has(ctx, km.Model.Name); err != nil {
			problem = err.Error()
		} else if !ok {
			problem = fmt.Sprintf("%s (%s) serves no model %q", p.Name, endpoint(d, p), km.Model.Name)
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
	fmt.Fprint(d.IO.Out, b.String())
	return bad
}

// findRepoRoot returns the nearest directory at or above dir holding .git
// (a directory, or a file in worktrees), or "" outside a repository. It runs
// no git command, so config verbs work without git.
func findRepoRoot(dir string) string {
	for dir != "" {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

func sortedProviderNames() []string {
	var names []string
	for n := range llm.Providers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// showInvalid shows an invalid configuration file as it is, each problem
// marked under its line, those of no line (a missing key, a credential)
// after it; the command still fails (exit 1) with the error every verb
// gives. --json gives the problems.
func showInvalid(d *Deps, opts *ConfigShowOptions, ce *config.Error) error {
	if opts.Export != nil {
		out := configJSON{Path: ce.Path, Problems: []problemJSON{}}
		for _, p := range ce.Problems {
			out.Problems = append(out.Problems, problemJSON{p.Line, p.Column, p.Key, p.Env, p.Msg})
		}
		if err := opts.Export.write(d, out); err != nil {
			return err
		}
		return ce
	}
	data, err := config.ReadFile(ce.Path)
	if err != nil {
		return ce
	}
	var b strings.Builder
	state := "the file is fine; what is missing is below"
	if slices.ContainsFunc(ce.Problems, func(p config.Problem) bool { return p.Env == "" }) {
		state = "invalid"
	}
	fmt.Fprintf(&b, "%s (%s):\n\n", ce.Path, state)
	lines := strings.Split(strings.TrimRight(redact.Mask(string(data)), "\n"), "\n")
	for i, l := range lines {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
		for _, p := range ce.Problems {
			if p.Line == i+1 {
				fmt.Fprintf(&b, "      %s^ %s\n", strings.Repeat(" ", max(p.Column-1, 0)), problemText(p))
			}
		}
	}
	var rest []string
	for _, p := range ce.Problems {
		if p.Line == 0 || p.Line > len(lines) {
			rest = append(rest, "  - "+problemText(p))
		}
	}
	if len(rest) > 0 {
		fmt.Fprintf(&b, "\nAlso:\n%s\n", strings.Join(rest, "\n"))
	}
	fmt.Fprint(d.IO.Out, b.String())
	return ce
}

// problemText is a problem without its place (the mark shows it).
func problemText(p config.Problem) string {
	p.Line, p.Column = 0, 0
	return p.String()
}
