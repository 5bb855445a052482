package configcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/setup"
)

// InitOptions are the parsed arguments of config init.
type InitOptions struct {
	WorkDir  string           // its repository suggests the verify commands
	Prompter cmdutil.Prompter // nil: no terminal, nothing is asked
}

// RunInit runs config init in the work directory (opts.WorkDir, else
// Deps.Dir).
func RunInit(ctx context.Context, d *cmdutil.Deps, opts *InitOptions) error {
	if opts.WorkDir == "" {
		var err error
		if opts.WorkDir, err = d.Dir(); err != nil {
			return err
		}
	}
	if opts.Prompter == nil && d.IO.CanPrompt() {
		opts.Prompter = d.NewPrompter(ctx)
	}
	return configInit(ctx, d, opts)
}

// ParseInit reads config init's arguments.
func ParseInit(d *cmdutil.Deps, args []string) (*InitOptions, error) {
	fs := cmdutil.NewFlagSet("config init", "gh ocdx config init",
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
	if err := fs.ParseArgs(d, args, 0); err != nil {
		return nil, err
	}
	return &InitOptions{}, nil
}

func configInit(ctx context.Context, d *cmdutil.Deps, opts *InitOptions) error {
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
	err = setup.WriteNew(path, file)
	if errors.Is(err, fs.ErrExist) {
		return existingConfig(path)
	}
	if err != nil {
		return err
	}
	fmt.Fprint(d.IO.Out, setup.NextSteps(d.Getenv, loc, local, verifyCmds, verifySaid))
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
func offerOllama(ctx context.Context, d *cmdutil.Deps, ask cmdutil.Prompter) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, ollamaProbe)
	defer cancel()
	p := llm.Providers["ollama"]
	list, err := llm.ListModels(ctx, p, d.Getenv)
	if err != nil || len(list.Names) == 0 {
		d.Log.Debug("no ollama to offer", "at", setup.Endpoint(d.Getenv, p), "err", err)
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
	fmt.Fprintf(d.IO.ErrOut, "Ollama answers at %s: a review can run on its models, without an API key.\n", setup.Endpoint(d.Getenv, p))
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

// ShowOptions are the parsed arguments of config show.
type ShowOptions struct {
	Export  *cmdutil.Exporter // --json, --jq, --template; nil: Markdown
	WorkDir string            // its repository's .ocdx.json applies
}

// RunShow runs config show in the work directory (opts.WorkDir, else
// Deps.Dir).
func RunShow(_ context.Context, d *cmdutil.Deps, opts *ShowOptions) error {
	if opts.WorkDir == "" {
		var err error
		if opts.WorkDir, err = d.Dir(); err != nil {
			return err
		}
	}
	return configShow(d, opts)
}

// ParseShow reads config show's arguments.
func ParseShow(d *cmdutil.Deps, args []string) (*ShowOptions, error) {
	opts := &ShowOptions{}
	fs := cmdutil.NewFlagSet("config show", "gh ocdx config show [--json [fields]] [--jq EXPR | --template T]",
		`Print the configuration in effect, with defaults applied: the file it was
read from, the model of each role, the verify commands (the current
working tree's .ocdx.json overrides them; for a pull request, review-loop and
fix read .ocdx.json from its base branch instead), the analyzers (the same
.ocdx.json's replace them), the model cutoffs and the providers' endpoints.
Credentials are never printed, only the names of their variables, and a
token in an analyzer's argv is masked. An
invalid file is shown as it is, each problem marked under its line, and
the command exits 1.`)
	jf := cmdutil.AddJSONFlags(fs, setup.Shown{})
	if err := fs.ParseArgs(d, jf.Args(args), 0); err != nil {
		return nil, err
	}
	var err error
	opts.Export, err = jf.Exporter(fs)
	return opts, err
}

func configShow(d *cmdutil.Deps, opts *ShowOptions) error {
	c, err := cmdutil.LoadConfig(d)
	var ce *config.Error
	if errors.As(err, &ce) && len(ce.Problems) > 0 {
		return showInvalid(d, opts, ce)
	}
	if err != nil {
		return err
	}
	if root := config.RepoRoot(opts.WorkDir); root != "" {
		if err := c.ApplyRepo(root); err != nil {
			return err
		}
	}
	if opts.Export != nil {
		return opts.Export.Write(d, setup.Show(c, d.Getenv))
	}
	return cmdutil.PrintMarkdown(d, setup.Markdown(c, d.Getenv))
}

// ValidateOptions are the parsed arguments of config validate.
type ValidateOptions struct {
	WorkDir string // its repository's .ocdx.json is checked too
	Online  bool   // ask each provider whether the models exist
}

// RunValidate runs config validate in the work directory (opts.WorkDir, else
// Deps.Dir).
func RunValidate(ctx context.Context, d *cmdutil.Deps, opts *ValidateOptions) error {
	if opts.WorkDir == "" {
		var err error
		if opts.WorkDir, err = d.Dir(); err != nil {
			return err
		}
	}
	return configValidate(ctx, d, opts)
}

// ParseValidate reads config validate's arguments.
func ParseValidate(d *cmdutil.Deps, args []string) (*ValidateOptions, error) {
	opts := &ValidateOptions{}
	fs := cmdutil.NewFlagSet("config validate", "gh ocdx config validate [--online]",
		`Check the configuration, the credentials its models need, that each verify
command's and analyzer's program can start here, and the current
repository's .ocdx.json if it has one. With --online, also ask each
provider's models endpoint whether every configured model exists and the
key may list it (no tokens are spent). Exit 0 when all is valid; otherwise
exit 1 and list every problem found.`)
	fs.BoolVar(&opts.Online, "online", false, "Also ask each provider whether the configured models exist")
	if err := fs.ParseArgs(d, args, 0); err != nil {
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
func configValidate(ctx context.Context, d *cmdutil.Deps, opts *ValidateOptions) error {
	c, missing, err := loadForValidate(d)
	if err != nil {
		return err
	}
	var valid []string
	if root := config.RepoRoot(opts.WorkDir); root != "" {
		_, path, err := config.RepoVerify(root)
		if err != nil {
			return err
		}
		if path != "" {
			valid = append(valid, path+" ("+setup.WorktreePolicy+")")
		}
	}
	var problems []string
	unset := map[string]bool{}
	for _, p := range missing {
		problems = append(problems, p.Text())
		unset[p.Env] = true
	}
	problems = append(problems, verifyProblemsFor(d, c, opts.WorkDir)...)
	problems = append(problems, analyzerProblemsFor(d, c, opts.WorkDir)...)
	for _, p := range problems {
		fmt.Fprintf(d.IO.Out, "X %s\n", p)
	}
	bad := len(problems)
	if opts.Online {
		report, n := setup.CheckOnline(ctx, c, d.Getenv, unset)
		fmt.Fprint(d.IO.Out, report)
		bad += n
	}
	if bad > 0 {
		fmt.Fprintf(d.IO.Out, "X %s: %s\n", c.Path, text.Plural(bad, "problem"))
		return cmdutil.ErrShown
	}
	for _, p := range append([]string{c.Path}, valid...) {
		fmt.Fprintf(d.IO.Out, "✓ %s is valid\n", p)
	}
	return nil
}

// loadForValidate loads the configuration as every verb would, except that
// a missing credential is a problem to list beside the others, not the end
// of the check: the file is fine, the shell lacks a key.
func loadForValidate(d *cmdutil.Deps) (*config.Config, []config.Problem, error) {
	c, err := cmdutil.LoadConfig(d)
	var ce *config.Error
	if err == nil || !errors.As(err, &ce) || ce.Err != nil || ce.Repo ||
		slices.ContainsFunc(ce.Problems, func(p config.Problem) bool { return p.Env == "" }) {
		return c, nil, err
	}
	c, err = cmdutil.LoadConfigFor(d, func(string) bool { return false })
	return c, ce.Problems, err
}

// showInvalid shows an invalid configuration file as it is, each problem
// marked under its line; the command still fails (exit 1) with the error
// every verb gives. --json gives the problems.
func showInvalid(d *cmdutil.Deps, opts *ShowOptions, ce *config.Error) error {
	if opts.Export != nil {
		if err := opts.Export.Write(d, setup.ShowInvalid(ce)); err != nil {
			return err
		}
		return ce
	}
	data, err := config.ReadFile(ce.Path)
	if err != nil {
		return ce
	}
	fmt.Fprint(d.IO.Out, setup.Listing(ce, data))
	return ce
}
