// Package rereview is what a re-review builds on (docs/architecture.md,
// Re-reviews): once gh-ocdx has reviewed a PR at a head that the new head
// descends from, the reviewers get what changed since, not the whole diff
// again, with the findings of that review, their lines followed to the new
// head, to say for each whether it is still present; what they do not
// judge is carried.
package rereview

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
)

// Delta is what a round reviews incrementally from: the changes since a
// reviewed head, and that review's findings.
type Delta struct {
	Since    string            // the head the previous review read
	Diff     string            // from Since to the round's head, as the policy leaves it
	Previous []finding.Finding // that review's code findings, their lines followed to the new head
	Fixed    []finding.Finding // those a fix since reported fixed
	// Changed are the previous findings whose line the diff since removed
	// or rewrote (or whose file it deleted).
	Changed map[string]bool
	// Closed are that review's refuted and dismissed findings, followed
	// too: not judged or carried, but raised again they keep their ID.
	Closed   []finding.Finding
	Coverage diff.Coverage // how much of the diff since the reviewers are given
}

// Previous is a finding as a re-review's task lists it.
type Previous struct {
	ID, Priority, Where, Title string
}

// List is the previous findings as the task lists them.
func (re *Delta) List() []Previous {
	var out []Previous
	for _, f := range re.Previous {
		where := f.File
		if f.Line != nil {
			where = fmt.Sprintf("%s:%d", where, *f.Line)
		}
		// One line, as the ledger records it: a fresh machine shows the same.
		out = append(out, Previous{ID: f.ID, Priority: f.Priority, Where: where, Title: text.OneLine(f.Title)})
	}
	return out
}

// Basis is the review a re-review builds on.
type Basis struct {
	Head     string            // the head it read
	Findings []finding.Finding // its findings
	Fixed    []string          // those a pushed fix fixed since
	// Dismissed are the dismissed findings it knew, located at Head.
	Dismissed []finding.Finding
	Sampled   string // the head before which coverage was sampled, if it was
}

// BasisOf is round rd as a basis. A fix counts only once pushed: one that
// failed verification, was declined or interrupted fixed nothing.
func BasisOf(rd state.Round) Basis {
	b := Basis{Head: rd.HeadOID, Findings: rd.Findings, Dismissed: rd.Dismissed}
	if rd.Fix != nil && rd.Fix.Pushed {
		b.Fixed = rd.Fix.FixedIDs()
	}
	if c := rd.Coverage; c != nil && c.Sampled() {
		b.Sampled = cmp.Or(c.SampledBefore, rd.HeadOID)
	}
	return b
}

// Follow moves f's line to where the diff since put it (a finding on the
// base's side stays). Its ID stays: it is the same finding, however its
// line moved.
func Follow(files []*diff.File, f finding.Finding) (finding.Finding, bool) {
	if f.Line == nil || f.Side == "LEFT" {
		return f, false
	}
	to, at, changed := diff.Follow(files, f.File, *f.Line)
	if to == "" {
		return f, true // its file is gone
	}
	if f.EndLine != nil {
		end := *f.EndLine + at - *f.Line
		f.EndLine = &end
	}
	if changed {
		f.Replacement = nil // the lines it would replace are not there
	}
	f.File, f.Line = to, &at
	return f, changed
}

// Carry adds to a re-review's findings the previous ones still open: a
// reviewer said still_present, or no reviewer judged it, no fix reported
// it fixed and its line is unchanged (one whose line changed and that no
// reviewer raised again is resolved). A finding raised again, by its ID or
// at its followed line (consensus.Identify; one the reviewers judged resolved only
// by its ID), keeps its ID, and is one finding with the copy carried, its
// reviewers those of both (consensus.RaisedAgain).
func Carry(fs []finding.Finding, re *Delta, v consensus.Verdicts, succeeded int) []finding.Finding {
	open := func(p finding.Finding) (carried, again bool) {
		c, judged := v[p.ID]
		fixed := slices.ContainsFunc(re.Fixed, func(f finding.Finding) bool { return f.ID == p.ID })
		return c.Still > 0 || !judged && !fixed && !re.Changed[p.ID], c.Still > 0 || !judged
	}
	fs, at := consensus.Identify(fs, slices.Concat(re.Previous, re.Closed), func(p finding.Finding) bool {
		_, again := open(p)
		return again
	})
	for _, p := range re.Previous {
		carried, _ := open(p)
		switch i, raised := at[p.ID]; {
		case raised && carried:
			fs[i] = consensus.RaisedAgain(fs[i], p, succeeded)
		case !raised && carried:
			fs = append(fs, p)
		}
	}
	return fs
}

// Carried are prev's basis findings where they are at head (their
// lines followed through the diff from prev's basis), and ok false when
// this clone cannot give that diff.
func Carried(prev posts.Ledger, head string, whole func(from string) (string, bool)) ([]finding.Finding, bool) {
	carried, located := prev.BasisFindings()
	if !located || prev.Basis == head || len(carried) == 0 {
		return carried, true
	}
	d, ok := whole(prev.Basis)
	if !ok {
		return nil, false
	}
	moves, _ := diff.Parse([]byte(d)) // bytes cannot fail to read
	for i, f := range carried {
		carried[i], _ = Follow(moves, f)
	}
	return carried, true
}
