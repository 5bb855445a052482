package converse

import (
	"context"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/posts"
)

// fakePRs is the conversation of one PR: what was posted lands in it.
type fakePRs struct {
	conv  []github.Comment
	perms map[string]github.Permission
}

func (f *fakePRs) Comments(context.Context, github.Repo, int) ([]github.Comment, error) {
	return f.conv, nil
}

func (f *fakePRs) PostComment(_ context.Context, _ github.Repo, _ int, body string) (*github.Comment, error) {
	c := github.Comment{ID: int64(100 + len(f.conv)), Author: viewer, Body: body}
	f.conv = append(f.conv, c)
	return &c, nil
}

func (f *fakePRs) ResolveThreads(context.Context, github.Repo, []github.ThreadReply) error {
	return nil
}

func (f *fakePRs) Permission(_ context.Context, _ github.Repo, login string) (github.Permission, error) {
	return f.perms[login], nil
}

// A comment's command counts only through the one permission check, and
// is answered once: a reader's /ocdx fix and the PR author's /ocdx dismiss
// get one answer each saying why not (the dismissal's with the refused
// tag earlier versions read), no verb runs, and acting on either comment
// again posts nothing.
func TestACommentIsAnsweredOnceAndOnlyAWriterRunsAVerb(t *testing.T) {
	ctx := context.Background()
	repo := github.Repo{Owner: "o", Name: "r"}
	gh := &fakePRs{perms: map[string]github.Permission{"reader": github.PermRead, "carol": github.PermWrite, "octocat": github.PermWrite}, conv: []github.Comment{
		{ID: 1, Author: "reader", Body: "/ocdx fix", URL: "https://x/pull/7#c1"},
		{ID: 2, Author: "octocat", Body: "/ocdx dismiss QUAL-1a2b3c4d", URL: "https://x/pull/7#c2"},
		{ID: 3, Author: "carol", Body: "/ocdx fix", URL: "https://x/pull/7#c3"},
	}}
	pr := &github.PullRequest{Number: 7, Viewer: viewer, Author: "octocat"}
	var ran []string
	m := Commander{GitHub: gh, Repo: repo, PR: pr, Trust: posts.NewTrust(gh, repo, nil), FixOn: true,
		Info: func(string, ...any) {}, Warn: func(string, ...any) {},
		Fix: func(context.Context) error { ran = append(ran, "fix"); return nil },
	}
	for _, id := range []int64{1, 2, 1, 2} {
		pr.Comments = gh.conv
		if err := m.Run(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if len(gh.conv) != 5 || len(ran) != 0 {
		t.Fatalf("posted %d answers, ran %v", len(gh.conv)-3, ran)
	}
	fix, dismiss := gh.conv[3].Body, gh.conv[4].Body
	if !strings.Contains(fix, posts.CommandTag("1")) || !strings.Contains(fix, "only people with write permission on o/r can run /ocdx commands") {
		t.Errorf("the answer to the reader's fix:\n%s", fix)
	}
	if !strings.Contains(dismiss, posts.CommandTag("2")) || !strings.Contains(dismiss, posts.Refusal{URL: "https://x/pull/7#c2"}.Tag()) ||
		!strings.Contains(dismiss, "the PR's author can't dismiss findings on their own PR") {
		t.Errorf("the answer to the author's dismissal:\n%s", dismiss)
	}

	pr.Comments = gh.conv
	if err := m.Run(ctx, 3); err != nil || len(ran) != 1 || !strings.Contains(gh.conv[len(gh.conv)-1].Body, "fixing the open findings now") {
		t.Errorf("a writer's /ocdx fix: %v, ran %v", err, ran)
	}
}
