package config

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/glob"
	"github.com/ocdx/gh-ocdx/learnings"
)

// ReviewFile is a repository's review guide, at its root: read as
// instructions for every reviewer, next to .ocdx.json's "instructions".
const ReviewFile = "REVIEW.md"

// DefaultIgnore are the globs ignored unless a repository's .ocdx.json sets
// "ignoreDefaults": false: lockfiles, vendored, generated and minified files,
// whose diffs cost tokens and hold nothing to review.
var DefaultIgnore = []string{"*.lock", "go.sum", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock",
	"vendor/**", "node_modules/**", "*.min.js", "*.min.css", "*.pb.go", "*_generated.*", "dist/**"}

// The keys of a repository's .ocdx.json.
var policyKeys = []string{"verify", "instructions", "paths", "ignore", "ignoreDefaults", "trustedLogins", "inlinePriorities", "maxInlineComments", "commands", "describe", "evidence", "analyzers"}

// Policy is a repository's review policy: its .ocdx.json and REVIEW.md
// (docs/architecture.md, Where the repository policy comes from). The nil
// Policy is a repository without either: the default ignore globs apply.
type Policy struct {
	Verify       []string // nil: the configuration's
	Instructions string   // .ocdx.json's "instructions"
	Guide        string   // REVIEW.md
	// Learnings are .ocdx/learnings.md's (docs/architecture.md,
	// Learnings): their sentences go to the reviewers with the guide,
	// their rules apply to a round's findings. LearningsWarnings say what
	// of the file was left out.
	Learnings         []learnings.Learning
	LearningsWarnings []string
	Paths             []PathRule // instructions for the files a glob matches
	// Ignore are the globs in effect: DefaultIgnore (unless ignoreDefaults
	// is false), then the file's own.
	Ignore []string
	// TrustedLogins post as gh-ocdx does (a CI bot): their reports, ledgers
	// and tags count as its own (docs/architecture.md, Whose posts count).
	TrustedLogins []string
	// InlinePriorities and MaxInlineComments, when set (non-nil, above
	// zero), replace the user's: how much a review may comment on a line
	// is the repository's call (docs/architecture.md, Noise budget).
	InlinePriorities  []string
	MaxInlineComments int
	// CommandsFix lets /ocdx review and /ocdx fix in the PR's comments
	// push fixes ("commands": {"fix": true}); off, /ocdx review only
	// reviews and /ocdx fix is refused (docs/architecture.md, Commands).
	CommandsFix bool
	// DescribeFirst ("describe": true) opens review-loop's first report
	// on a PR with gh ocdx describe's description (docs/architecture.md,
	// Describe), as the user's own "describe" does.
	DescribeFirst bool
	// ComplianceFindings: "describe": {"compliance": "finding"}.
	ComplianceFindings bool
	// Evidence are globs of tool result files in the checkout that a
	// review reads (docs/architecture.md, Evidence); they match only files
	// git does not track at the PR's head.
	Evidence []string
	// Analyzers, when set, replace the configuration's, as Verify does.
	Analyzers []Analyzer
}

// PathRule is one entry of "paths".
type PathRule struct {
	Glob         string
	Instructions string // "" when the rule only sets Effort
	// Effort, when set, is how much review a change to these files gets
	// at the auto tier (docs/architecture.md, Effort tiers).
	Effort effort.Tier
}

// DefaultPolicy is the policy of a repository with no .ocdx.json.
func DefaultPolicy() *Policy {
	return &Policy{Ignore: append([]string(nil), DefaultIgnore...)}
}

// ParsePolicy validates the bytes of a repository's .ocdx.json read from
// where (a path in a work tree, or ".ocdx.json on main at 1a2b3c4"; branch
// says which, for the message). Problems are *Error naming where.
func ParsePolicy(data []byte, where string, branch bool) (*Policy, error) {
	p, problems := parseRepo(data)
	if len(problems) > 0 {
		return nil, &Error{Path: where, Problems: problems, Repo: true, Branch: branch}
	}
	return p, nil
}

// ReadPolicy reads the policy of the work tree at repoRoot: its .ocdx.json
// (path is its absolute path, "" when there is none) and its REVIEW.md.
func ReadPolicy(repoRoot string) (p *Policy, path string, err error) {
	path, err = filepath.Abs(filepath.Join(repoRoot, RepoFile))
	if err != nil {
		return nil, "", err
	}
	data, err := ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p, path = DefaultPolicy(), ""
	case err != nil:
		return nil, "", &Error{Path: path, Err: err, Repo: true}
	default:
		if p, err = ParsePolicy(data, path, false); err != nil {
			return nil, "", err
		}
	}
	guide, err := ReadFile(filepath.Join(repoRoot, ReviewFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", &Error{Path: filepath.Join(repoRoot, ReviewFile), Err: err, Repo: true}
	}
	p.Guide = string(guide)
	return p, path, nil
}

// FromBase is the repository policy of a change: .ocdx.json, REVIEW.md
// and .ocdx/learnings.md as the base has them (where names the .ocdx.json read: ".ocdx.json on
// main at 1a2b3c4"). The change's own copies are never read, for a PR or a
// local branch alike: whoever wrote the change would choose the commands
// run on this machine and the rules of its own review (docs/architecture.md,
// Where the repository policy comes from). A base .ocdx.json that cannot be
// used is an error naming it: running without it could run commands or
// review in a way the base's maintainers did not choose.
func FromBase(where string, policy, guide, learned github.PolicyFile) (*Policy, error) {
	p := DefaultPolicy()
	if policy.Found {
		var cause error
		switch {
		case policy.Truncated:
			cause = errors.New("only the start of the file could be read, it is too large")
		case policy.NotText:
			cause = errors.New("it is not a text file")
		}
		if cause != nil {
			return nil, &Error{Path: where, Err: cause, Repo: true, Branch: true}
		}
		var err error
		if p, err = ParsePolicy([]byte(policy.Text), where, true); err != nil {
			return nil, err
		}
	}
	// A REVIEW.md given only in part is used as far as given: the
	// instructions are capped shorter anyway.
	if guide.Found && !guide.NotText {
		p.Guide = guide.Text
	}
	// Learnings given only in part are read as far as given, as a
	// REVIEW.md is; one of them malformed is left out, with a warning.
	if learned.Found && !learned.NotText {
		p.Learnings, p.LearningsWarnings = learnings.Parse(learned.Text)
	}
	return p, nil
}

// Ignored reports whether file's diff is left out of a review's task.
func (p *Policy) Ignored(file string) bool {
	globs := DefaultIgnore
	if p != nil {
		globs = p.Ignore
	}
	for _, g := range globs {
		if glob.Match(g, file) {
			return true
		}
	}
	return false
}

// Trusted are the logins whose posts count as gh-ocdx's own besides the
// one it posts as (TrustedLogins); none without a policy.
func (p *Policy) Trusted() []string {
	if p == nil {
		return nil
	}
	return p.TrustedLogins
}
