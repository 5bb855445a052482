package cmd

import (
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/verify"
)

// The verify commands from the first run on (docs/architecture.md, Where the
// repository policy comes from): config init proposes the repository's own,
// config validate checks that each can run here, and fix and review-loop
// push nothing without any.

// initVerify chooses the verify commands config init writes: those the
// repository at workDir suggests (confirmed in a terminal), else those the
// user types in a terminal, else none. said is where they came from, or
// why there are none.
func initVerify(d *cmdutil.Deps, ask cmdutil.Prompter, workDir string) (cmds []string, said string, err error) {
	root := config.RepoRoot(workDir)
	var det config.Detected
	if root != "" {
		det = config.DetectVerify(root)
	}
	if len(det.Commands) > 0 {
		from := strings.Join(det.From, ", ")
		if ask == nil {
			return det.Commands, "taken from this repository's " + from, nil
		}
		fmt.Fprintf(d.IO.ErrOut, "This repository's %s suggest these commands to check a fix before it is pushed:\n  %s\n", from, strings.Join(det.Commands, "\n  "))
		ok, err := ask.Confirm("Use them?", true)
		if err != nil {
			return nil, "", err
		}
		if ok {
			return det.Commands, "taken from this repository's " + from, nil
		}
	}
	if ask == nil {
		return nil, "none found here: no Makefile cmdutil.Target, go.mod, package.json script, Cargo.toml or pyproject.toml tool names any", nil
	}
	fmt.Fprintln(d.IO.ErrOut, "Which commands check a change in your repositories before gh-ocdx pushes a fix (its linters, its tests)? One per line, as you would type it, without a shell; an empty line ends.")
	for len(cmds) < 10 {
		c, err := ask.Input(fmt.Sprintf("Verify command %d:", len(cmds)+1))
		if err != nil {
			return nil, "", err
		}
		c = strings.TrimSpace(c)
		if c == "" {
			break
		}
		if _, err := verify.SplitCommand(c); err != nil {
			fmt.Fprintf(d.IO.ErrOut, "! %v; type it again\n", err)
			continue
		}
		cmds = append(cmds, c)
	}
	if len(cmds) == 0 {
		return nil, "none given", nil
	}
	return cmds, "as you gave them", nil
}

// verifyProblemsFor is config validate's check of the verify commands in
// effect here (config.Config.VerifyHere): one line for each that cannot
// run on this machine.
func verifyProblemsFor(d *cmdutil.Deps, c *config.Config, workDir string) []string {
	root, cmds, from := c.VerifyHere(d.Getenv("HOME"), workDir)
	if len(cmds) == 0 {
		fmt.Fprintf(d.IO.ErrOut, "! no verify commands: fix and review-loop push nothing until you set them: %s\n", c.VerifyHint(d.Getenv("HOME"), root, ""))
		return nil
	}
	return verify.Problems(root, cmds, from)
}

// analyzerProblemsFor says, for each analyzer in effect in workDir whose
// program cannot start there, why and what to fix; its argv masked, as
// config show gives it.
func analyzerProblemsFor(d *cmdutil.Deps, c *config.Config, workDir string) []string {
	root, as, from := c.AnalyzersHere(d.Getenv("HOME"), workDir)
	var out []string
	for i, a := range as {
		if len(a.Argv) == 0 {
			continue // parsing refuses it
		}
		if p := verify.ProgramProblem(root, a.Argv[0]); p != "" {
			out = append(out, redact.Mask(fmt.Sprintf("analyzers[%d] %q %q (%s): %s", i, a.Name, a.Command(), from, p)))
		}
	}
	return out
}

// requireVerify refuses a fix that would be pushed unchecked: no verify
// commands in the base branch's .ocdx.json nor in the configuration. It
// runs before any model call.
func requireVerify(d *cmdutil.Deps, p *prepared) error {
	if len(p.cfg.Verify) > 0 {
		return nil
	}
	base := fmt.Sprintf("%s has no %s", p.pr.BaseRefName, config.RepoFile)
	if p.pr.BasePolicy.Found {
		base = fmt.Sprintf("%s on %s sets no \"verify\"", config.RepoFile, p.pr.BaseRefName)
	}
	return fmt.Errorf("no verify commands, and gh-ocdx pushes no fix it could not check: %s, and your configuration sets none; %s (or pass --dry-run to push nothing)",
		base, p.cfg.VerifyHint(d.Getenv("HOME"), p.co.Repo.Dir, p.pr.BaseRefName))
}
