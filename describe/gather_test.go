package describe

import (
	"context"
	"testing"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/github"
)

// fakeGitHub holds a PR's conversation and records what Post wrote.
type fakeGitHub struct {
	change.PRSource
	comments        []github.Comment
	posted, updated []string
}

func (f *fakeGitHub) Commits(context.Context, github.Repo, int) ([]github.Commit, error) {
	return nil, nil
}
func (f *fakeGitHub) Issue(context.Context, github.Repo, int) (*github.Issue, error) { return nil, nil }
func (f *fakeGitHub) Comments(context.Context, github.Repo, int) ([]github.Comment, error) {
	return f.comments, nil
}

func (f *fakeGitHub) UpdateComment(_ context.Context, _ github.Repo, id int64, body string) (*github.Comment, error) {
	f.updated = append(f.updated, body)
	return &github.Comment{ID: id, URL: "https://github.com/o/r/pull/3#issuecomment-1"}, nil
}

func (f *fakeGitHub) PostComment(_ context.Context, _ github.Repo, _ int, body string) (*github.Comment, error) {
	f.posted = append(f.posted, body)
	return &github.Comment{ID: 2, URL: "https://github.com/o/r/pull/3#issuecomment-2"}, nil
}

// A PR has one description comment of gh-ocdx's: a rerun edits its own,
// and a copy someone else posted is theirs, never edited.
func TestPostEditsItsOwnDescriptionOnly(t *testing.T) {
	repo := github.Repo{Host: "github.com", Owner: "o", Name: "r"}
	pr := &github.PullRequest{Number: 3, HeadRefOid: "0123456789abcdef0123456789abcdef01234567", Viewer: "ocdx-bot"}
	earlier := Comment("# Earlier", pr.HeadRefOid, "footer")
	gh := &fakeGitHub{comments: []github.Comment{{ID: 1, Author: "mallory", Body: earlier}}}
	if _, updated, err := Post(t.Context(), gh, repo, pr, "# Now", "footer"); err != nil || updated || len(gh.posted) != 1 || len(gh.updated) != 0 {
		t.Fatalf("another's copy: updated %v, posted %d, edited %d, %v", updated, len(gh.posted), len(gh.updated), err)
	}
	gh = &fakeGitHub{comments: []github.Comment{{ID: 1, Author: "ocdx-bot", Body: earlier}}}
	url, updated, err := Post(t.Context(), gh, repo, pr, "# Now", "footer")
	if err != nil || !updated || len(gh.posted) != 0 || len(gh.updated) != 1 || url != "https://github.com/o/r/pull/3#issuecomment-1" {
		t.Fatalf("its own: updated %v, posted %d, edited %d, %q, %v", updated, len(gh.posted), len(gh.updated), url, err)
	}
}
