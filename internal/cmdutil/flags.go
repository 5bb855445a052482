package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cli/go-gh/v2/pkg/repository"
	"github.com/spf13/pflag"

	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/llm"
)

// ErrHelpShown ends a command after -h/--help printed its usage; Run turns it
// into success.
var ErrHelpShown = errors.New("help shown")

// FlagSet is a verb's pflag.FlagSet with the flags every verb has (--debug,
// -h/--help) and its usage text.
type FlagSet struct {
	*pflag.FlagSet
	usageLine   string
	description string
	help        bool
	debug       bool
	host        string // what OWNER/REPO means: Deps.DefaultHost, set by ParseArgs
	width       int    // of the help: stdout's terminal, set by ParseArgs
	maxTokens   *int64 // --max-tokens, when the verb has it
	// effort is --effort, when the verb has it: its text, then the tier.
	effort     *string
	effortTier *effort.Tier
}

// NewFlagSet is the flag set of the verb name: usageLine and description
// are its help's.
func NewFlagSet(name, usageLine, description string) *FlagSet {
	f := &FlagSet{FlagSet: pflag.NewFlagSet(name, pflag.ContinueOnError), usageLine: usageLine, description: description}
	f.SetOutput(io.Discard)
	f.SortFlags = false
	return f
}

// ParseRepoFlag is the function ParseRepoFlag with this verb's usage on a bad --repo.
func (f *FlagSet) ParseRepoFlag(flag string) (repository.Repository, error) {
	r, err := ParseRepoFlag(flag, f.host)
	if ue, ok := err.(*UsageError); ok {
		ue.Usage = f.ShortUsage()
	}
	return r, err
}

// RepoFlag adds -R/--repo as in gh.
func (f *FlagSet) RepoFlag(p *string) {
	f.StringVarP(p, "repo", "R", "", "Select a repository using the [HOST/]OWNER/REPO format")
}

// MaxTokensFlag adds --max-tokens N, the invocation's token budget
// (docs/architecture.md, Budget and costs); ParseArgs refuses N <= 0.
func (f *FlagSet) MaxTokensFlag(p *int64, usage string) {
	f.Int64Var(p, "max-tokens", 0, usage)
	f.maxTokens = p
}

// EffortFlag adds --effort TIER (docs/architecture.md, Effort tiers),
// checked by ParseArgs: "" in p when not given, the configuration's then.
func (f *FlagSet) EffortFlag(p *effort.Tier, usage string) {
	f.effort, f.effortTier = new(string), p
	f.StringVar(f.effort, "effort", "", usage)
}

// usage is the verb's help as gh lays it out, wrapped to the terminal's
// width (80 when not one): the usage line first, the description, the
// flags, then the examples.
func (f *FlagSet) usage() string {
	width := max(f.width, 40)
	var b strings.Builder
	b.WriteString(text.WrapUsage(f.usageLine, width, "Usage: ", "       ") + "\n\n")
	var examples string
	for _, p := range strings.Split(f.description, "\n\n") {
		if strings.HasPrefix(p, "Examples:") {
			examples += p + "\n"
			continue
		}
		b.WriteString(wrapParagraph(p, width) + "\n\n")
	}
	fmt.Fprintf(&b, "Flags:\n%s", f.FlagUsagesWrapped(width))
	if examples != "" {
		b.WriteString("\n" + examples)
	}
	return b.String()
}

// wrapParagraph fills a paragraph of help to width; one with indented
// lines (examples, a list) is kept as written.
func wrapParagraph(p string, width int) string {
	for _, l := range strings.Split(p, "\n") {
		if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "- ") {
			return p
		}
	}
	return text.Wrap(p, width, "", "")
}

// CheckModel is --model's check, the same for every verb of one model:
// "" (the configured one) or a provider/model name, else a usage error.
func (f *FlagSet) CheckModel(model string) error {
	if model == "" {
		return nil
	}
	if _, err := llm.ParseModel(model); err != nil {
		return f.UsageErr("invalid --model: %v", err)
	}
	return nil
}

// UsageErr is a usage error carrying this verb's usage line and where its
// help is, as gh does, not the whole help.
func (f *FlagSet) UsageErr(format string, a ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, a...), Usage: f.ShortUsage()}
}

// NeedsTerminal is ErrNoTerminal for this verb: "what, and this is not a
// terminal: instead" with the verb's usage.
func (f *FlagSet) NeedsTerminal(what, instead string) error {
	return noTerminal(what, instead, f.ShortUsage())
}

func noTerminal(what, instead, usage string) error {
	return &UsageError{Msg: what + ", and this is not a terminal: " + instead, Usage: usage, Err: ErrNoTerminal}
}

// ShortUsage is what a usage error shows: the usage line and where the
// help is.
func (f *FlagSet) ShortUsage() string {
	return fmt.Sprintf("Usage: %s\n\nRun 'gh ocdx %s --help' for more.\n", f.usageLine, f.Name())
}

// ParseArgs parses args and checks that exactly nargs positional arguments remain
// (nargs < 0: any number). It prints help on -h and turns --debug on.
func (f *FlagSet) ParseArgs(d *Deps, args []string, nargs int) error {
	// Defined last so that help lists the verb's own flags first.
	f.BoolVar(&f.debug, "debug", false, "Log debug details on stderr")
	f.BoolVarP(&f.help, "help", "h", false, "Show this help")
	f.host = d.DefaultHost()
	f.width = d.IO.TerminalWidth()
	if err := f.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			f.help = true
		} else {
			return f.UsageErr("%s", err)
		}
	}
	if f.help {
		fmt.Fprint(d.IO.Out, f.usage())
		return ErrHelpShown
	}
	if f.debug || debugEnabled(d.Getenv) {
		d.setDebug()
	}
	if f.maxTokens != nil && f.Changed("max-tokens") && *f.maxTokens <= 0 {
		return f.UsageErr("invalid --max-tokens %d: give the most tokens the run may use, above zero", *f.maxTokens)
	}
	if f.effort != nil && f.Changed("effort") {
		t, err := effort.Parse(*f.effort)
		if err != nil || *f.effort == "" {
			return f.UsageErr("invalid --effort: %q is not an effort tier: use one of %s", *f.effort, strings.Join(effort.Names, ", "))
		}
		*f.effortTier = t
	}
	if nargs >= 0 && f.NArg() != nargs {
		switch {
		case f.NArg() > nargs:
			return f.UsageErr("unexpected argument %q", f.Arg(nargs))
		default:
			return f.UsageErr("missing argument: %s", f.usageLine)
		}
	}
	return nil
}

// CheckBranchFlag: --branch names a local review of this clone, so neither
// a pull request nor another repository goes with it.
func CheckBranchFlag(fs *FlagSet, branch string, pr int, repo string) error {
	switch {
	case branch == "":
		return nil
	case pr != 0:
		return fs.UsageErr("--branch names a local review, not a pull request: give one or the other")
	case repo != "":
		return fs.UsageErr("--branch names a local review of the current repository: -R does not apply")
	case strings.HasPrefix(branch, "-"):
		return fs.UsageErr("invalid --branch %q: give a branch name", branch)
	}
	return nil
}
