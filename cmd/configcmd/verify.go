package configcmd

import (
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/verify"
)

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
