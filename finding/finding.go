// Package finding holds what every role and verb shares about findings: the
// envelope shapes the roles answer with, the priority order, the ID rule and
// the marker and tag on every comment gh-ocdx posts.
package finding

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The data shapes (docs/architecture.md, Envelopes), as the roles return them in
// their envelopes (envelope.Decode). Fields are required unless tagged
// envelope:"optional"; Finding.ID and Finding.Source are optional because
// gh-ocdx computes or fills them itself.

// Priorities, most severe first.
var Priorities = []string{"P0", "P1", "P2", "P3"}

// Conclusions a reviewer may reach.
var Conclusions = []string{"approve", "request_changes", "needs_major_work"}

// Finding is one problem a role reports; gh-ocdx fills ID and Source.
type Finding struct {
	ID       string `json:"id" envelope:"optional"`
	Priority string `json:"priority"`
	Category string `json:"category"`
	File     string `json:"file"`
	Line     *int   `json:"line" envelope:"optional"` // null when unknown
	// Side is "LEFT" when line..endLine number the base's version: a
	// finding about removed lines says so. Absent or "RIGHT": the PR's
	// version (docs/architecture.md, Posting).
	Side string `json:"side,omitempty" envelope:"optional"`
	// EndLine ends the range line..endLine that Replacement replaces.
	EndLine     *int   `json:"endLine,omitempty" envelope:"optional"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Suggestion  string `json:"suggestion" envelope:"optional"` // advice, in words
	// Replacement is the exact new text of line..endLine (or line), posted
	// as a suggestion GitHub can commit (docs/architecture.md, Posting).
	Replacement *string `json:"replacement,omitempty" envelope:"optional"`
	Source      *Source `json:"source" envelope:"optional"`
	// Reviewers are the reviewers that raised this problem, by model, and
	// Agreement how many of the reviewers that answered they are ("2/3"):
	// gh-ocdx fills both when it merges the reviewers' copies; what a
	// model sends in them is dropped.
	Reviewers []string `json:"reviewers,omitempty" envelope:"optional"`
	Agreement string   `json:"agreement,omitempty" envelope:"optional"`
	// Tools are the repository's tools whose results are this problem
	// (docs/architecture.md, Evidence): gh-ocdx fills it; what a model
	// sends is dropped.
	Tools []string `json:"tools,omitempty" envelope:"optional"`
	// Status is "" (open) or refuted, and Evidence the verifier's quote of
	// the lines that refute it (docs/architecture.md, The verifier):
	// gh-ocdx sets both; what a model sends in them is dropped.
	Status   Status `json:"status,omitempty" envelope:"optional"`
	Evidence string `json:"evidence,omitempty" envelope:"optional"`
}

// Source says who reported a finding.
type Source struct {
	Type      string  `json:"type"` // agent | human
	Name      string  `json:"name"`
	ReviewID  *string `json:"reviewId" envelope:"optional"`
	Timestamp string  `json:"timestamp" envelope:"optional"`
}

// IssueCounts counts findings per priority.
type IssueCounts struct {
	P0 int `json:"p0_blocking"`
	P1 int `json:"p1_critical"`
	P2 int `json:"p2_important"`
	P3 int `json:"p3_suggestion"`
}

// Counts counts findings per priority, as gh-ocdx's reports and --json
// name them (p0…p3); IssueCounts is the reviewers' envelope's spelling.
type Counts struct {
	P0 int `json:"p0"`
	P1 int `json:"p1"`
	P2 int `json:"p2"`
	P3 int `json:"p3"`
}

// ReviewerResult is a reviewer's envelope.
type ReviewerResult struct {
	Agent      string      `json:"agent"`
	PRNumber   int         `json:"prNumber"`
	Conclusion string      `json:"conclusion"`
	Issues     IssueCounts `json:"issues"`
	Findings   []Finding   `json:"findings"`
	FullReport string      `json:"fullReport"`
	// Previous is a re-review's verdict on each finding of the round
	// before (docs/architecture.md, Re-reviews); absent in a full review.
	Previous []Verdict `json:"previous,omitempty" envelope:"optional"`
}

// The verdicts a re-review gives a previous finding.
const (
	StillPresent = "still_present"
	Resolved     = "resolved"
)

// Verdict is a reviewer's word on one previous finding. Like everything a
// model answers it is checked where it is used: an unknown ID or verdict
// is left out, not an error.
type Verdict struct {
	ID      string `json:"id" envelope:"optional"`
	Verdict string `json:"verdict" envelope:"optional"`
}

// Actor is a GitHub user with their association to the repository.
type Actor struct {
	Login       string `json:"login"`
	Association string `json:"association"`
}

// ReviewState is the PR's review decision as the orchestrator computed it.
type ReviewState struct {
	HasChangesRequested bool    `json:"hasChangesRequested"`
	ChangesRequestedBy  []Actor `json:"changesRequestedBy"`
}

// ThreadStats counts review threads.
type ThreadStats struct {
	Total      int `json:"totalThreads"`
	Resolved   int `json:"resolvedThreads"`
	Unresolved int `json:"unresolvedThreads"`
}

// CommentsAnalyzerResult is the comments analyzer's envelope.
type CommentsAnalyzerResult struct {
	Agent            string      `json:"agent"`
	PRNumber         int         `json:"prNumber"`
	ReviewState      ReviewState `json:"reviewState"`
	Stats            ThreadStats `json:"stats"`
	ThreadsTruncated bool        `json:"threadsTruncated"`
	Issues           IssueCounts `json:"issues"`
	PendingIssues    []Finding   `json:"pendingIssues"`
	FullReport       string      `json:"fullReport"`
}

// FixPayload is what gh-ocdx sends the fix role.
type FixPayload struct {
	PRNumber       int       `json:"prNumber"`
	Round          int       `json:"round"`
	IssuesToFix    []Finding `json:"issuesToFix"`
	OptionalIssues []Finding `json:"optionalIssues"`
}

// FixSummary counts the fix role's outcomes.
type FixSummary struct {
	Fixed    int `json:"fixed"`
	Rejected int `json:"rejected"`
	Deferred int `json:"deferred"`
}

// FixedIssue is a finding the fix role fixed, and where.
type FixedIssue struct {
	FindingID   string `json:"findingId"`
	CommitSha   string `json:"commitSha"`
	Description string `json:"description" envelope:"optional"`
}

// RejectedIssue is a finding the fix role declined, and why.
type RejectedIssue struct {
	FindingID string `json:"findingId"`
	Reason    string `json:"reason"`
}

// Commit is a commit the fix role made.
type Commit struct {
	Sha     string `json:"sha"`
	Message string `json:"message"`
}

// FixAnswer is the fix role's envelope, checked against the branch before
// anything is pushed.
type FixAnswer struct {
	Agent          string          `json:"agent"`
	PRNumber       int             `json:"prNumber"`
	Summary        FixSummary      `json:"summary"`
	FixedIssues    []FixedIssue    `json:"fixedIssues"`
	RejectedIssues []RejectedIssue `json:"rejectedIssues"`
	Commits        []Commit        `json:"commits"`
}

// Validate checks what types cannot: the priority.
func (f Finding) Validate() error {
	if !slices.Contains(Priorities, f.Priority) {
		return fmt.Errorf("priority %q is not one of %s", f.Priority, strings.Join(Priorities, ", "))
	}
	return nil
}

// Validate checks the conclusion and every finding.
func (r *ReviewerResult) Validate() error {
	if !slices.Contains(Conclusions, r.Conclusion) {
		return fmt.Errorf("conclusion %q is not one of %s", r.Conclusion, strings.Join(Conclusions, ", "))
	}
	return validateAll("findings", r.Findings)
}

// Validate checks every pending issue.
func (r *CommentsAnalyzerResult) Validate() error {
	return validateAll("pendingIssues", r.PendingIssues)
}

// Validate checks every finding of the payload.
func (p *FixPayload) Validate() error {
	if err := validateAll("issuesToFix", p.IssuesToFix); err != nil {
		return err
	}
	return validateAll("optionalIssues", p.OptionalIssues)
}

func validateAll(field string, fs []Finding) error {
	for i, f := range fs {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("%s[%d]: %w", field, i, err)
		}
	}
	return nil
}

// ID computes a finding's ID (docs/architecture.md, Finding IDs): the category's short
// code, a dash and the first 8 hex digits of SHA-1("category|file|line|title"),
// line empty when unknown. The model's own ID is never trusted.
func ID(category, file string, line *int, title string) string {
	l := ""
	if line != nil {
		l = strconv.Itoa(*line)
	}
	sum := sha1.Sum([]byte(category + "|" + file + "|" + l + "|" + title))
	return categoryCode(category) + "-" + hex.EncodeToString(sum[:])[:8]
}

// ComputeID returns ID of f's fields.
func (f Finding) ComputeID() string { return ID(f.Category, f.File, f.Line, f.Title) }

func categoryCode(category string) string {
	switch strings.ToLower(strings.TrimSpace(category)) {
	case "security":
		return "SEC"
	case "performance":
		return "PERF"
	case "quality":
		return "QUAL"
	case "architecture":
		return "ARCH"
	case "testing":
		return "TEST"
	case "docs":
		return "DOCS"
	default:
		return "OTHER"
	}
}
