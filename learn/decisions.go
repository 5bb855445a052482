// Package learn is gh ocdx learn (docs/architecture.md, Learnings): the
// decisions people with write permission made on a repository's pull
// requests, as stats read their ledgers, grouped by what they are about,
// and the learnings they support, proposed as a change to the
// repository's learnings file for a person to review and merge.
package learn

import (
	"context"
	"strings"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/learnings"
	"github.com/ocdx/gh-ocdx/stats"
)

// Kind is how a finding ended, as learn counts it.
type Kind string

const (
	Dismissed Kind = "dismissed" // by someone with write permission, not the PR's author
	// Conceded: gh-ocdx conceded it to the reply of someone with write
	// permission, not the PR's author (disputed, in the ledger).
	Conceded Kind = "conceded"
	Refuted  Kind = "refuted"  // the verifier's refutation, upheld (nobody restored it)
	Restored Kind = "restored" // someone overruled the verifier: against a learning
	Fixed    Kind = "fixed"    // against a learning, as is resolved
	Resolved Kind = "resolved"
)

// Decision is one finding's end on one pull request, located as far as
// the ledger locates it.
type Decision struct {
	PR       int    `json:"pr"`
	ID       string `json:"id"`
	Priority string `json:"priority,omitempty"`
	File     string `json:"file,omitempty"`
	Title    string `json:"title,omitempty"`
	Kind     Kind   `json:"kind"`
	By       string `json:"by,omitempty"` // who dismissed it, or whose reply it was conceded to
	Reason   string `json:"reason,omitempty"`
}

// finding is d as a rule sees a finding.
func (d Decision) finding() finding.Finding {
	return finding.Finding{ID: d.ID, Priority: d.Priority, File: d.File, Title: d.Title}
}

// supports reports whether d is a decision a learning may rest on.
func (d Decision) supports() bool {
	return d.Kind == Dismissed || d.Kind == Conceded || d.Kind == Refuted
}

// persons reports whether d is a person's decision: a dismissal, or a
// concession to their reply.
func (d Decision) persons() bool { return d.Kind == Dismissed || d.Kind == Conceded }

// Permissions reads a login's permission on the repository
// (*posts.Trust is one: each login asked once).
type Permissions interface {
	Permission(ctx context.Context, login string) (github.Permission, error)
}

// Ignored counts the dismissals and concessions that teach nothing, by
// why.
type Ignored struct {
	Author  int `json:"author"`  // the PR's author dismissed it or wrote the reply, an admin or not
	NoWrite int `json:"noWrite"` // by someone without write permission (now)
	// Unnamed: the ledger names nobody (a dismissal before version 3, a
	// concession before it said to whom), or the PR's author is unknown.
	Unnamed int `json:"unnamed"`
}

// Total is the dismissals and concessions ignored.
func (ig Ignored) Total() int { return ig.Author + ig.NoWrite + ig.Unnamed }

// Collect is how the findings of prs' ledgers ended (stats.Read's
// trusted ledgers): the dismissals that count, by someone with write
// permission who is not the PR's author, the concessions that count
// (disputed: gh-ocdx conceded it to a reply by such a person), the
// refutations nobody restored, and what counts against a learning
// (fixed, resolved, restored). A P0, SEC- or THREAD- finding is never
// collected: no learning may touch one.
func Collect(ctx context.Context, prs []stats.ReviewedPR, perms Permissions) (ds []Decision, ig Ignored, err error) {
	for _, pr := range prs {
		if pr.Ledger == nil {
			continue
		}
		for _, e := range pr.Ledger.Findings {
			d := Decision{PR: pr.Number, ID: e.ID, Priority: e.Priority, File: e.File, Title: e.Title}
			if learnings.Protected(d.finding()) {
				continue
			}
			switch {
			case e.Restored:
				d.Kind = Restored
			case e.Status == finding.StatusFixed:
				d.Kind = Fixed
			case e.Status == finding.StatusResolved:
				d.Kind = Resolved
			case e.Status == finding.StatusRefuted:
				d.Kind = Refuted
			case e.Status == finding.StatusDismissed, e.Status == finding.StatusDisputed:
				d.Kind, d.By, d.Reason = Dismissed, e.DismissedBy, e.Reason
				if e.Status == finding.StatusDisputed {
					d.Kind, d.By = Conceded, e.ConcededTo // a ledger keeps no reason but a dismissal's
				}
				ok, err := counts(ctx, perms, pr.Author, d.By, &ig)
				if err != nil {
					return nil, Ignored{}, err
				}
				if !ok {
					continue
				}
			default:
				continue
			}
			ds = append(ds, d)
		}
	}
	return ds, ig, nil
}

// counts reports whether a dismissal by by on a PR of author, or a
// concession to by's reply, teaches anything: by has write permission
// and is not the author (an admin author's own dismissal counts on their
// PR, not here). What it ignores is counted in ig.
func counts(ctx context.Context, perms Permissions, author, by string, ig *Ignored) (bool, error) {
	switch {
	case by == "" || author == "":
		ig.Unnamed++
		return false, nil
	case strings.EqualFold(by, author):
		ig.Author++
		return false, nil
	}
	p, err := perms.Permission(ctx, by)
	if err != nil {
		return false, err
	}
	if !p.CanWrite() {
		ig.NoWrite++
		return false, nil
	}
	return true, nil
}
