// Package cmdutil is the verb framework of gh ocdx, as cli/cli's pkg/cmdutil
// and iostreams are gh's: the Deps every verb receives (its streams, its
// environment and the factory of its collaborators), a verb's flag set and
// its --json Exporter, the PR argument, the pager, the prompter, the lines
// written for the person, and the errors that become exit codes (ExitCode,
// the one place that maps them). It knows no verb: the verbs are in cmd
// and in the packages under it (docs/architecture.md, Packages).
package cmdutil

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/charmbracelet/log"
	"github.com/cli/go-gh/v2/pkg/repository"
	"github.com/fatih/color"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/progress"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/state"
)

// Deps is the small bag of dependencies every verb receives: the streams,
// the environment and the working directory of the process, and the factory
// of a verb's collaborators (factory.go). Verbs read nothing of the process
// but through it, so their tests run in-process with fakes.
type Deps struct {
	IO     *IOStreams
	Getenv func(string) string
	// Log is for --debug and GH_DEBUG only: without them it writes nothing,
	// and the person reads the lines of ui.go instead.
	Log     *log.Logger
	Version string
	// WorkDir is the directory verbs work in, the checkout; "" is the
	// process's working directory.
	WorkDir string

	// The factory. A nil field gets the real collaborator, built from the
	// environment (Getenv) and WorkDir; a test sets the ones it fakes.
	BaseRepo func() (repository.Repository, error)               // the repository when -R names none
	GitHub   func(host string) (*github.Client, error)           // a client for host with the user's token and timeout
	Model    func(name string, o llm.Options) (llm.Model, error) // a provider/model client
	Store    func() (*state.Store, error)                        // the state file
	Prompter func(ctx context.Context) Prompter                  // questions on the terminal
	Now      func() time.Time                                    // the clock of what verbs record
	// Backoff is the first wait before a GitHub or model request is tried
	// again when the server asks for none (it doubles each try); 0 is the
	// clients' own (1s for GitHub, 0.5s for models).
	Backoff time.Duration

	credentials sync.Once         // registerCredentials, on the first client built
	progress    *progress.Display // the live display of model calls; built on first use
	progressMu  sync.Mutex
}

// NewDeps builds the dependencies of a process on ios (System's, in main):
// the environment is the process's, and the live display of model calls
// is drawn on stderr when it is a terminal.
func NewDeps(version string, ios *IOStreams) *Deps {
	prog := progress.New(ios.ErrOut, ios.ErrTerminalWidth(), ios.errFile)
	// The spinner colours its glyph through fatih/color, whose own check
	// looks at stdout and at no NO_COLOR: it is told the process's once,
	// before any spinner runs.
	spinnerColour.Do(func() { color.NoColor = !colourOn(os.Getenv) })
	if prog.Spins() {
		// Lines written to stderr go above the spinner.
		ios.ErrOut, ios.RawErr = prog.Writer(ios.ErrOut), prog.Writer(ios.RawErr)
	}
	return &Deps{
		progress: prog,
		IO:       ios,
		Getenv:   os.Getenv,
		Log:      log.NewWithOptions(ios.TerminalErr(), log.Options{Level: logQuiet}),
		Version:  version,
	}
}

var spinnerColour sync.Once

// logQuiet is a level above every level the logger has: no line is logged
// until --debug or GH_DEBUG lowers it.
const logQuiet = log.FatalLevel + 1
