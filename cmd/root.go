// Package cmd is gh ocdx's dispatch (which verb a word names, the help,
// Execute) and the verbs that run a review or a fix: review-loop,
// review-pr, review and fix. The other verbs are packages of their own
// under it (cmd/<noun>cmd), all on the framework of internal/cmdutil
// (docs/architecture.md, Packages).
package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/cmd/commandcmd"
	"github.com/ocdx/gh-ocdx/cmd/configcmd"
	"github.com/ocdx/gh-ocdx/cmd/describecmd"
	"github.com/ocdx/gh-ocdx/cmd/evalcmd"
	"github.com/ocdx/gh-ocdx/cmd/findingcmd"
	"github.com/ocdx/gh-ocdx/cmd/learncmd"
	"github.com/ocdx/gh-ocdx/cmd/replycmd"
	"github.com/ocdx/gh-ocdx/cmd/statecmd"
	"github.com/ocdx/gh-ocdx/cmd/statscmd"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// command is one entry of the dispatch table: a verb with a run function, or
// a noun (config, state) with verbs below it.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, d *cmdutil.Deps, args []string) error
	sub     []command
}

// verb is a verb's run function made of its two steps, as every verb has
// them: its arguments parsed into its options, then the work they ask for.
func verb[O any](parse func(*cmdutil.Deps, []string) (*O, error), run func(context.Context, *cmdutil.Deps, *O) error) func(context.Context, *cmdutil.Deps, []string) error {
	return func(ctx context.Context, d *cmdutil.Deps, args []string) error {
		opts, err := parse(d, args)
		if err != nil {
			return err
		}
		return run(ctx, d, opts)
	}
}

// ocdxVerbs are the verbs of cmd an /ocdx command runs, each parsing the
// argv the command stands for (commandcmd.Argv) as its own command line.
var ocdxVerbs = commandcmd.Verbs{
	Review: func(ctx context.Context, d *cmdutil.Deps, args []string, reviewOnly string) error {
		opts, err := parseReviewLoop(d, args)
		if err != nil {
			return err
		}
		opts.ReviewOnly = reviewOnly
		return reviewLoop(ctx, d, opts)
	},
	Fix: verb(parseFix, fixPR),
}

// commands lists what gh ocdx can do. A verb appears here only once it works.
func commands() []command {
	return []command{
		{name: "command", summary: "Act on an /ocdx command or a reply in a PR's comments", run: verb(commandcmd.Parse, ocdxVerbs.Run)},
		{name: "config", summary: "Create, show or validate the configuration", sub: []command{
			{name: "init", summary: "Write an example configuration", run: verb(configcmd.ParseInit, configcmd.RunInit)},
			{name: "show", summary: "Print the configuration in effect", run: verb(configcmd.ParseShow, configcmd.RunShow)},
			{name: "validate", summary: "Check the configuration and its credentials", run: verb(configcmd.ParseValidate, configcmd.RunValidate)},
		}},
		{name: "describe", summary: "Say what a pull request does and whether it meets its issues", run: verb(describecmd.Parse, describecmd.Run)},
		{name: "dismiss", summary: "Stop gh-ocdx raising findings on a pull request", run: verb(findingcmd.ParseDismiss, findingcmd.Dismiss)},
		{name: "eval", summary: "Measure which reviewer mix would have caught past bugs", sub: []command{
			{name: "history", summary: "Review the history's fixed pull requests as they were, and score each mix", run: verb(evalcmd.Parse, evalcmd.Run)},
		}},
		{name: "fix", summary: "Fix a pull request's findings, verify and push", run: verb(parseFix, fixPR)},
		{name: "learn", summary: "Propose learnings from people's decisions, as a change to review", run: verb(learncmd.Parse, learncmd.Run)},
		{name: "reply", summary: "Answer people's replies in gh-ocdx's review threads", run: verb(replycmd.Parse, replycmd.Run)},
		{name: "restore", summary: "Overrule the verifier: count a refuted finding again", run: verb(findingcmd.ParseRestore, findingcmd.Restore)},
		{name: "review", summary: "Review the current branch's changes before a pull request exists", run: runReview},
		{name: "review-loop", summary: "Review, fix and re-review a pull request until it converges", run: runReviewLoop},
		{name: "review-pr", summary: "Review a pull request with one model, with you in the loop", run: runReviewPR},
		{name: "state", summary: "Show or clear what gh-ocdx remembers about pull requests", sub: []command{
			{name: "show", summary: "List pull requests, or show one in full", run: verb(statecmd.ParseShow, statecmd.RunShow)},
			{name: "clear", summary: "Forget a pull request's runs, stuck findings and work in progress", run: verb(statecmd.ParseClear, statecmd.RunClear)},
		}},
		{name: "stats", summary: "Count how findings ended per reviewer model, and what each costs", run: verb(statscmd.Parse, statscmd.Run)},
		{name: "version", summary: "Print the version", run: runVersion},
	}
}

const rootDescription = `Review and fix pull requests with LLMs, from your terminal.`

// Execute runs gh ocdx as a process does: the arguments after the program
// name, the error (if any) on stderr, and the exit code returned.
func Execute(ctx context.Context, args []string, d *cmdutil.Deps) int {
	err := Run(ctx, args, d)
	code := cmdutil.ExitCode(ctx, err)
	if msg := cmdutil.EndMessage(code, err); msg != "" {
		fmt.Fprintln(d.IO.ErrOut, msg)
	}
	return code
}

// Run executes gh ocdx with the arguments after the program name.
func Run(ctx context.Context, args []string, d *cmdutil.Deps) error {
	err := dispatch(ctx, d, "gh ocdx", rootDescription, commands(), args)
	if errors.Is(err, cmdutil.ErrHelpShown) {
		return nil
	}
	return err
}

// dispatch finds the command named by the first argument. Global flags may
// stand before it (--debug, -R/--repo); they are handed on to the verb.
func dispatch(ctx context.Context, d *cmdutil.Deps, path, description string, cmds []command, args []string) error {
	var globals []string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		switch {
		case a == "-h" || a == "--help":
			fmt.Fprint(d.IO.Out, nounHelp(path, description, cmds))
			return cmdutil.ErrHelpShown
		case a == "--version" && path == "gh ocdx":
			return runVersion(ctx, d, nil)
		case a == "--debug":
			globals = append(globals, a)
			args = args[1:]
		case (a == "-R" || a == "--repo") && len(args) > 1:
			globals = append(globals, a, args[1])
			args = args[2:]
		case strings.HasPrefix(a, "--repo="):
			globals = append(globals, a)
			args = args[1:]
		default:
			return &cmdutil.UsageError{Msg: fmt.Sprintf("unknown flag %q for %s", a, path), Usage: nounUsage(path, cmds)}
		}
	}
	if len(args) == 0 {
		if len(globals) > 0 {
			return &cmdutil.UsageError{Msg: "missing command", Usage: nounUsage(path, cmds)}
		}
		fmt.Fprint(d.IO.Out, nounHelp(path, description, cmds))
		return cmdutil.ErrHelpShown
	}
	name, rest := args[0], args[1:]
	if name == "help" && path == "gh ocdx" {
		if len(rest) == 0 {
			fmt.Fprint(d.IO.Out, nounHelp(path, description, cmds))
			return cmdutil.ErrHelpShown
		}
		name, rest = rest[0], append(rest[1:], "--help")
	}
	for _, c := range cmds {
		if c.name != name {
			continue
		}
		if c.sub != nil {
			return dispatch(ctx, d, path+" "+c.name, c.summary+".", c.sub, append(globals, rest...))
		}
		return c.run(ctx, d, append(globals, rest...))
	}
	msg := fmt.Sprintf("unknown command %q for %s", name, path)
	if s := suggest(name, cmds); s != "" {
		msg += fmt.Sprintf("\n\nDid you mean %q?", s)
	}
	return &cmdutil.UsageError{Msg: msg, Usage: nounUsage(path, cmds)}
}

// nounUsage is what a usage error shows, as a verb's does: the usage line,
// the commands by name, and where the help is; not the whole help.
func nounUsage(path string, cmds []command) string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	return fmt.Sprintf("Usage: %s <command> [flags]\nCommands: %s\n\nRun '%s --help' for more.\n", path, strings.Join(names, ", "), path)
}

// suggest is the command closest to a mistyped name, as cobra suggests:
// within two edits, or one the name starts.
func suggest(name string, cmds []command) string {
	best, dist := "", 3
	for _, c := range cmds {
		if d := text.Distance(strings.ToLower(name), c.name); d < dist {
			best, dist = c.name, d
		}
	}
	if best == "" && len(name) > 1 {
		for _, c := range cmds {
			if strings.HasPrefix(c.name, strings.ToLower(name)) {
				return c.name
			}
		}
	}
	return best
}

func nounHelp(path, description string, cmds []command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s <command> [flags]\n\n%s\n\nCommands:\n", path, description)
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.summary)
	}
	b.WriteString("\nFlags:\n")
	if path == "gh ocdx" {
		b.WriteString("      --version   Print the version\n")
	}
	b.WriteString("      --debug     Log debug details on stderr\n  -h, --help      Show help for a command\n")
	fmt.Fprintf(&b, "\nRun '%s <command> --help' for more about a command.\n", path)
	if path == "gh ocdx" {
		b.WriteString(rootFooter)
	}
	return b.String()
}

const rootFooter = `
Configuration: $OCDX_CONFIG, else $XDG_CONFIG_HOME/gh-ocdx/config.json
(run 'gh ocdx config init' to create it). Timeouts: OCDX_MODEL_TIMEOUT,
how long a model answer may send nothing (default 2m; an answer is also
cut after 30m), and OCDX_GITHUB_TIMEOUT, per GitHub request (default 60s).

Exit codes: 0 done, 1 error, 2 usage error, 3 finished without converging,
130 cancelled.
`
