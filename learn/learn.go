package learn

import (
	"context"

	"github.com/ocdx/gh-ocdx/learnings"
	"github.com/ocdx/gh-ocdx/stats"
)

// Report is what gh ocdx learn found and proposes (--json).
type Report struct {
	Repository string `json:"repository"`
	PRs        int    `json:"prs"` // the pull requests read
	// Decisions counts the decisions read by kind (dismissed, conceded,
	// refuted, restored, fixed, resolved); Ignored the dismissals and
	// concessions that teach nothing.
	Decisions map[Kind]int `json:"decisions"`
	Ignored   Ignored      `json:"ignored"`
	// Existing are the learnings the file holds already; Proposed the new
	// ones, appended to it.
	Existing []learnings.Learning `json:"existing"`
	Proposed []learnings.Learning `json:"proposed"`
	Warnings []string             `json:"warnings,omitempty"` // of the file as read
	Path     string               `json:"path"`
	Diff     string               `json:"diff"` // the change to Path; "" when none
	// PullRequest is the pull request --pr opened; "" without --pr.
	PullRequest string `json:"pullRequest,omitempty"`
}

// Options are what Learn works from: the pull requests stats.Read read,
// a judge of permissions, and the learnings file as the default branch
// has it ("" when it has none).
type Options struct {
	Repository string
	PRs        []stats.ReviewedPR
	Perms      Permissions
	File       string
}

// Learn proposes the learnings o's decisions support that the file does
// not hold yet, and the file with them appended (o.File when none).
func Learn(ctx context.Context, o Options) (r Report, file string, err error) {
	ds, ig, err := Collect(ctx, o.PRs, o.Perms)
	if err != nil {
		return Report{}, "", err
	}
	existing, warnings := learnings.Parse(o.File)
	r = Report{Repository: o.Repository, PRs: len(o.PRs), Decisions: map[Kind]int{}, Ignored: ig,
		Existing: orEmpty(existing), Warnings: warnings, Path: learnings.File}
	for _, d := range ds {
		r.Decisions[d.Kind]++
	}
	r.Proposed = orEmpty(Propose(ds, existing))
	file = learnings.Append(o.File, r.Proposed)
	r.Diff = learnings.Diff(learnings.File, o.File, file)
	return r, file, nil
}

func orEmpty(ls []learnings.Learning) []learnings.Learning {
	if ls == nil {
		return []learnings.Learning{}
	}
	return ls
}
