package diff

import (
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// Coverage says how much of a PR's diff the reviewers were given: each
// changed file's diff whole, cut at the reviewers' limit, left out past it, or
// ignored by the repository's policy.
type Coverage struct {
	Files        int      `json:"files"`        // files the PR changes
	Whole        int      `json:"whole"`        // files whose diff was given whole
	Cut          []string `json:"cut"`          // files whose diff was cut
	LeftOut      int      `json:"leftOut"`      // files whose diff was left out
	LeftOutNames []string `json:"leftOutNames"` // the first MaxCoverageNames of them, when known
	Ignored      int      `json:"ignored"`      // files whose diff the repository's ignore globs left out
	// Submodules are the given files that are submodule pointers (the
	// first MaxCoverageNames): their diff is a commit ID, reviewed as the
	// pointer it is.
	Submodules []string `json:"submodules,omitempty"`
	// Unscanned are files that add lines the secret scan could not read:
	// GitHub sent no patch for them and the PR's commits are not in the
	// checkout.
	Unscanned []string `json:"unscanned,omitempty"`
	// HistoryUnscanned: the PR's own commits are not in the checkout, so
	// what only its history holds (a line added and removed again, a
	// commit's message) was not scanned for secrets.
	HistoryUnscanned bool `json:"historyUnscanned,omitempty"`
	// SampledBefore is the head of an earlier review this one builds on
	// (a re-review) whose diff was cut: what it did not see, nobody has
	// seen since.
	SampledBefore string `json:"sampledBefore,omitempty"`
	// Evidence counts the tool results the review read, when it read any
	// (docs/architecture.md, Evidence).
	Evidence *Evidence `json:"evidence,omitempty"`
}

// Evidence counts a review's tool results: those on the lines the PR
// changes became findings, the others were left out.
type Evidence struct {
	Tools     []string `json:"tools"`
	Results   int      `json:"results"`
	OnChanged int      `json:"onChanged"`
	LeftOut   int      `json:"leftOut"`
	// Dropped are results past a file's cap, or about a file outside the
	// repository.
	Dropped int `json:"dropped,omitempty"`
}

// String says the counts: "evidence: 7 results of shellcheck, 2 on the
// lines this PR changes, 5 left out (on lines it does not change)".
func (e Evidence) String() string {
	s := fmt.Sprintf("evidence: %s of %s, %d on the lines this PR changes, %d left out (on lines it does not change)",
		text.Plural(e.Results, "result"), strings.Join(e.Tools, ", "), e.OnChanged, e.LeftOut)
	if e.Results == 0 {
		s = "evidence: no tool results"
	}
	if e.Dropped > 0 {
		s += fmt.Sprintf(", %d not read (past a file's cap, or outside the repository)", e.Dropped)
	}
	return s
}

// MaxCoverageNames bounds the file names a coverage lists.
const MaxCoverageNames = 20

// Sampled reports whether some diff was cut or left out.
func (c Coverage) Sampled() bool {
	return len(c.Cut) > 0 || c.LeftOut > 0 || len(c.Unscanned) > 0 || c.SampledBefore != ""
}

// String is the coverage in words, for reports: "the whole diff (3 files)"
// or "large diff: sampled — 40 of 55 files whole, 1 cut (`big.go`), 14
// left out (`a.go`, … and 4 more)".
func (c Coverage) String() string {
	if c.Files == 0 && c.Whole == 0 {
		return "not recorded"
	}
	if c.Evidence != nil {
		e := *c.Evidence
		c.Evidence = nil
		return c.String() + "; " + e.String()
	}
	ignored := ""
	if c.Ignored > 0 {
		ignored = fmt.Sprintf(", %s ignored by the ignore globs", text.Plural(c.Ignored, "file"))
	}
	unscanned := ""
	if len(c.Unscanned) > 0 {
		unscanned = fmt.Sprintf("; %s not scanned for secrets%s, GitHub sent no patch for them: check the PR out (gh pr checkout) and re-run", text.Plural(len(c.Unscanned), "file"), QuoteNames(c.Unscanned[:min(len(c.Unscanned), MaxCoverageNames)], len(c.Unscanned)))
	}
	if c.HistoryUnscanned {
		unscanned += "; the PR's commits are not in this clone, so its history (lines added and removed again, commit messages) was not scanned for secrets: fetch the PR's base and head and re-run"
	}
	if len(c.Submodules) > 0 {
		ignored += fmt.Sprintf(", %s%s", text.Plural(len(c.Submodules), "submodule pointer"), QuoteNames(c.Submodules, len(c.Submodules)))
	}
	before := ""
	if c.SampledBefore != "" {
		before = fmt.Sprintf("; built on the review of %s, whose diff was cut: until a full review (--full) sees the whole diff, parts of the PR were never shown to a reviewer", text.ShortOID(c.SampledBefore))
	}
	if len(c.Cut) == 0 && c.LeftOut == 0 {
		if before != "" {
			return fmt.Sprintf("large diff: sampled — the diff since, whole (%s)%s%s%s", text.Plural(c.Whole, "file"), ignored, unscanned, before)
		}
		return fmt.Sprintf("the whole diff (%s)%s%s", text.Plural(c.Whole, "file"), ignored, unscanned)
	}
	s := fmt.Sprintf("large diff: sampled — %d of %s whole, %d cut%s, %d left out%s%s; the reviewers could read the rest with tools, but may not have%s%s",
		c.Whole, text.Plural(c.Files, "file"), len(c.Cut), QuoteNames(c.Cut, len(c.Cut)), c.LeftOut, QuoteNames(c.LeftOutNames, c.LeftOut), ignored, unscanned, before)
	return s
}

// QuoteNames lists names as code spans, each one line and without a
// backtick, with "… and N more" when total is more than the list.
func QuoteNames(list []string, total int) string {
	if len(list) == 0 {
		return ""
	}
	var q []string
	for _, n := range list {
		// A path is PR text: one line, no backtick to end the code span.
		n = text.OneLine(strings.ReplaceAll(n, "`", "'"))
		if len(n) > 200 {
			n = strings.ToValidUTF8(n[:200], "") + "…"
		}
		q = append(q, "`"+n+"`")
	}
	if more := total - len(list); more > 0 {
		q = append(q, fmt.Sprintf("… and %d more", more))
	}
	return " (" + strings.Join(q, ", ") + ")"
}
