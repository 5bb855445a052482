package loop

import (
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/effort"
)

// EffortFacts are the facts the auto tier decides from for a change's
// diff under policy (docs/architecture.md, Effort tiers), the secret
// count given.
func EffortFacts(d []byte, policy *config.Policy, secrets int) effort.Facts {
	f := effort.Facts{Secrets: secrets, Rules: effortRules(policy)}
	f.Files, f.Lines = diffFacts(d)
	return f
}
