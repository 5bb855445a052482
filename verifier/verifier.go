// Package verifier holds the rules of the verifier role (docs/architecture.md,
// The verifier): an optional agent that reads the PR's head to confirm or
// refute the findings only one reviewer raised. A refuted finding is shown
// with the verifier's evidence, not posted inline, counted, fixed or
// blocking, until someone with write permission restores it. The agent is
// run by the round (package roles); this package decides what it may check,
// what it is told and what its answer changes.
package verifier

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/prompts"
	"github.com/ocdx/gh-ocdx/secretscan"
)

const (
	// Name is the verifier's role name in usage, reports and the state file.
	Name = "verifier"
	// System is the verifier's system prompt.
	System = "You check code review findings against the code they name. You answer with exactly one BEGIN_JSON … END_JSON envelope."
	// MaxEvidence bounds the evidence shown for one refuted finding.
	MaxEvidence = 600
)

// Verdict is the verifier's word on one finding: refuted or not, and the
// lines it read that show it.
type Verdict struct {
	ID       string
	Refuted  bool
	Evidence string
}

// Checkable reports whether the verifier may check f at all: a P1–P3
// finding a reviewer raised. Never a P0 (a hostile file the verifier reads
// must not clear a blocker), gh-ocdx's own SEC- finding, or a thread.
func Checkable(f finding.Finding) bool {
	switch {
	case f.Priority != "P1" && f.Priority != "P2" && f.Priority != "P3":
		return false
	case strings.HasPrefix(f.ID, "SEC-"), consensus.IsThread(f), secretscan.Own(f):
		return false
	}
	return true
}

// Verifiable are the findings of fs that go to the verifier: the
// checkable ones raised by a single reviewer (every checkable one when
// reviewers, the reviewers configured, is one), not already refuted.
func Verifiable(fs []finding.Finding, reviewers int) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if Checkable(f) && f.Status != finding.StatusRefuted && (reviewers <= 1 || len(f.Reviewers) <= 1) {
			out = append(out, f)
		}
	}
	return out
}

// Verdicts are the verifier's answers as verdicts: only an answer about a
// finding it was sent counts, and its evidence, a model's text about files
// the PR controls, is redacted and cut to MaxEvidence.
func Verdicts(answers []finding.VerifierAnswer, sent []string) []Verdict {
	var vs []Verdict
	for _, a := range answers {
		if slices.Contains(sent, a.ID) {
			vs = append(vs, Verdict{ID: a.ID, Refuted: a.Verdict == finding.Refuted, Evidence: redact.ForComment(text.Excerpt(a.Evidence, MaxEvidence))})
		}
	}
	return vs
}

// ApplyVerdicts returns a copy of fs with the findings vs refutes marked
// refuted, with their evidence. Only a checkable finding is refuted; a
// verdict on an ID fs does not hold changes nothing, and an ID that is
// both confirmed and refuted is not refuted (a model's answer is as
// hostile as the files it read).
func ApplyVerdicts(fs []finding.Finding, vs []Verdict) []finding.Finding {
	out := slices.Clone(fs)
	for i, f := range out {
		if !Checkable(f) {
			continue
		}
		refuted, confirmed, evidence := false, false, ""
		for _, v := range vs {
			if v.ID != f.ID {
				continue
			}
			if v.Refuted {
				refuted = true
				if evidence == "" {
					evidence = v.Evidence
				}
			} else {
				confirmed = true
			}
		}
		if refuted && !confirmed {
			out[i].Status, out[i].Evidence = finding.StatusRefuted, evidence
		}
	}
	return out
}

// SplitRefuted takes the refuted findings out of fs.
func SplitRefuted(fs []finding.Finding) (kept, refuted []finding.Finding) {
	kept = []finding.Finding{}
	for _, f := range fs {
		if f.Status == finding.StatusRefuted {
			refuted = append(refuted, f)
		} else {
			kept = append(kept, f)
		}
	}
	return kept, refuted
}

// Status is how the verifier did in a round: the findings it was asked
// about, those it refuted, and those it was not asked about because
// someone restored them on the PR.
type Status struct {
	Model    string        `json:"model"`
	OK       bool          `json:"ok"`
	Error    string        `json:"error,omitempty"`
	Sent     []string      `json:"sent"`
	Refuted  []string      `json:"refuted"`
	Restored []string      `json:"restored,omitempty"`
	Usage    tokens.Usage  `json:"usage"`
	CostUSD  float64       `json:"estimatedCostUsd,omitempty"`
	Elapsed  time.Duration `json:"-"`
}

// findingView is what the verifier is told of a finding.
type findingView struct {
	ID          string `json:"id"`
	Priority    string `json:"priority"`
	File        string `json:"file"`
	Line        *int   `json:"line"`
	EndLine     *int   `json:"endLine,omitempty"`
	Side        string `json:"side,omitempty"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// Task is the verifier's task on the change s: the findings fs it is to
// check.
func Task(s change.Subject, fs []finding.Finding) (string, error) {
	views := make([]findingView, 0, len(fs))
	for _, f := range fs {
		views = append(views, findingView{ID: f.ID, Priority: f.Priority, File: f.File, Line: f.Line, EndLine: f.EndLine, Side: f.Side,
			Title: f.Title, Description: text.Excerpt(f.Description, 2000)})
	}
	b, err := json.MarshalIndent(views, "", "  ")
	if err != nil {
		return "", err
	}
	return prompts.Render("verifier.md", map[string]any{
		"Number": s.Number, "Title": s.Title, "URL": s.URL, "Head": text.ShortOID(s.HeadOID), "Findings": string(b),
	})
}
