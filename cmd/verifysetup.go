package cmd

import (
	"fmt"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
)

// The verify commands from the first run on (docs/architecture.md, Where the
// repository policy comes from): config init proposes the repository's own,
// config validate checks that each can run here, and fix and review-loop
// push nothing without any.

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
