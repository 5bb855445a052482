// Package effort decides how much review a change gets: which of the
// configured reviewers read it, whether the comments analyzer runs, and
// what the verifier checks (docs/architecture.md, Effort tiers). The rules
// are facts the report can show; a tier never changes what converges, only
// who reviews.
package effort

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/glob"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// Tier is how much review a change gets.
type Tier string

const (
	// Quick is the first reviewer alone: no verifier, and no comments
	// analyzer unless the PR has unresolved review threads.
	Quick Tier = "quick"
	// Standard is the configured reviewers, analyzer and verifier.
	Standard Tier = "standard"
	// Deep is every reviewer, and the verifier on every P1–P3 finding, not
	// only those one reviewer raised.
	Deep Tier = "deep"
	// Auto picks one of the three from the change (Decide).
	Auto Tier = "auto"
)

// Names are the tiers a user may ask for, in the order help lists them.
var Names = []string{string(Quick), string(Standard), string(Deep), string(Auto)}

// Parse reads a tier's name; "" is Auto.
func Parse(s string) (Tier, error) {
	if s == "" {
		return Auto, nil
	}
	if !slices.Contains(Names, s) {
		return "", fmt.Errorf("%q is not an effort tier: use one of %s", s, strings.Join(Names, ", "))
	}
	return Tier(s), nil
}

// rank orders the three tiers a round runs at.
func rank(t Tier) int {
	switch t {
	case Quick:
		return 0
	case Deep:
		return 2
	}
	return 1
}

// PathRule is a base branch's .ocdx.json paths rule that names a tier.
type PathRule struct {
	Glob string
	Tier Tier
}

// Facts are what Auto decides from, each one the report can name.
type Facts struct {
	// Files are the changed files' paths: the PR's, or on a re-review the
	// files changed since the last review.
	Files []string
	// Lines are the added and removed lines of that change.
	Lines int
	// Rules are the base branch's paths rules that name a tier.
	Rules []PathRule
	// Secrets is how many secrets the scan found in the change.
	Secrets int
	// Security is whether an earlier review of the PR raised a security
	// finding.
	Security bool
}

// LargeChange is the number of changed lines past which Auto reviews at
// Deep: a change that size hides more than one reviewer reads.
const LargeChange = 1000

// Choice is the tier a round runs at and why, as the report says it.
type Choice struct {
	Tier  Tier   `json:"tier"`
	Asked Tier   `json:"asked"`
	Why   string `json:"why"`
}

// Decide is the tier of a change reviewed at asked (a flag or the
// configuration; Auto or "" to let the facts decide). Whatever was asked,
// a change with a secret in it is never reviewed at Quick.
func Decide(asked Tier, f Facts) Choice {
	if asked == "" {
		asked = Auto
	}
	c := Choice{Asked: asked}
	if asked != Auto {
		c.Tier, c.Why = asked, "asked for"
		if asked == Quick && f.Secrets > 0 {
			c.Tier, c.Why = Standard, fmt.Sprintf("quick was asked for, but the secret scan found %s: never quick", text.Plural(f.Secrets, "secret"))
		}
		return c
	}
	if g, t := ruleTier(f); t == Deep {
		c.Tier, c.Why = Deep, fmt.Sprintf("a changed file matches %q, which the base branch's .ocdx.json reviews at deep", g)
		return c
	}
	switch {
	case f.Security:
		c.Tier, c.Why = Deep, "an earlier review of this pull request raised a security finding"
	case f.Lines > LargeChange:
		c.Tier, c.Why = Deep, fmt.Sprintf("%s changed (more than %d)", text.Plural(f.Lines, "line"), LargeChange)
	case f.Secrets > 0:
		c.Tier, c.Why = Standard, fmt.Sprintf("the secret scan found %s: never quick", text.Plural(f.Secrets, "secret"))
	case len(f.Files) == 0:
		c.Tier, c.Why = Standard, "no changed file to judge by"
	default:
		c.Tier, c.Why = light(f)
	}
	return c
}

// light is Quick when every changed file is documentation, a test or
// generated (or a rule says quick), else Standard.
func light(f Facts) (Tier, string) {
	kinds := map[string]int{}
	for _, file := range f.Files {
		k := kindOf(file, f.Rules)
		if k == "" {
			return Standard, fmt.Sprintf("%q is code", file)
		}
		kinds[k]++
	}
	var parts []string
	for _, k := range []string{"documentation", "tests", "generated", "quick by a paths rule"} {
		if kinds[k] > 0 {
			parts = append(parts, k)
		}
	}
	return Quick, fmt.Sprintf("%s changed, all %s", text.Plural(len(f.Files), "file"), strings.Join(parts, ", "))
}

// ruleTier is the highest tier a paths rule gives a changed file, with the
// rule's glob; "" when no rule matches.
func ruleTier(f Facts) (pattern string, t Tier) {
	for _, file := range f.Files {
		for _, r := range f.Rules {
			if glob.Match(r.Glob, file) && (t == "" || rank(r.Tier) > rank(t)) {
				pattern, t = r.Glob, r.Tier
			}
		}
	}
	return pattern, t
}

// kindOf is why file needs little review ("documentation", "tests",
// "generated", or a rule's quick), or "" when it is code. A paths rule
// naming another tier for the file makes it code.
func kindOf(file string, rules []PathRule) string {
	for _, r := range rules {
		if glob.Match(r.Glob, file) {
			if r.Tier == Quick {
				return "quick by a paths rule"
			}
			return ""
		}
	}
	lower := strings.ToLower(file)
	switch {
	case anyMatch(lower, generated):
		return "generated"
	case anyMatch(lower, tests):
		return "tests"
	case anyMatch(lower, docs):
		return "documentation"
	}
	return ""
}

// The kinds of file a quick review is enough for, as globs (config.Match:
// without a slash, the base name in any directory).
var (
	docs      = []string{"*.md", "*.mdx", "*.rst", "*.txt", "*.adoc", "docs/**", "doc/**", "license*", "copying*", "authors*", "changelog*", "codeowners"}
	tests     = []string{"*_test.go", "*.test.js", "*.test.ts", "*.test.tsx", "*.spec.js", "*.spec.ts", "*.spec.tsx", "test_*.py", "*_test.py", "test/**", "tests/**", "**/__tests__/**", "**/testdata/**"}
	generated = []string{"*.pb.go", "*_gen.go", "*.gen.go", "zz_generated*", "go.sum", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "cargo.lock", "poetry.lock", "gemfile.lock", "composer.lock", "*.min.js", "*.min.css", "*.snap"}
)

func anyMatch(file string, globs []string) bool {
	for _, g := range globs {
		if glob.Match(g, file) {
			return true
		}
	}
	return false
}
