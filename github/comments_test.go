package github_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestCommentsListsEveryPage(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 4, HeadOID: strings.Repeat("a", 40)})
	c := newClient(t, gh)
	for i := range 230 {
		if _, err := c.PostComment(context.Background(), repo, 4, fmt.Sprintf("comment %d", i)); err != nil {
			t.Fatal(err)
		}
	}

	got, err := c.Comments(context.Background(), repo, 4)

	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 230 || got[0].Body != "comment 0" || got[229].Body != "comment 229" || got[5].URL == "" || got[5].Author == "" {
		t.Fatalf("got %d comments, first %+v", len(got), got[0])
	}
	if n := gh.Count("comments"); n != 3 {
		t.Errorf("%d requests for 230 comments, want 3 pages of 100", n)
	}
}

func TestCommentsOfAMissingPR(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.Fail(testkit.Fault{Kind: "comments", Status: 404})
	_, err := newClient(t, gh).Comments(context.Background(), repo, 9)
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("err = %v", err)
	}
}

func TestAppliedFaultPostsAndFails(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	gh.AddPR("octo/widgets", testkit.PR{Number: 4, HeadOID: strings.Repeat("a", 40)})
	gh.Fail(testkit.Fault{Kind: "comment", Status: 502, Apply: true})
	c := newClient(t, gh)

	_, err := c.PostComment(context.Background(), repo, 4, "hello")

	if err == nil || !strings.Contains(err.Error(), "may or may not have been applied") {
		t.Fatalf("err = %v", err)
	}
	if got := gh.Comments("octo/widgets", 4); len(got) != 1 || got[0].Body != "hello" || gh.Count("comment") != 1 {
		t.Fatalf("the comment must be applied once and the POST never retried: %+v, %d POSTs", got, gh.Count("comment"))
	}
}

func TestOpenPullRequestsOfABranch(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	sha := strings.Repeat("a", 40)
	gh.AddPR("octo/widgets", testkit.PR{Number: 1, Title: "one", HeadRef: "feat", HeadOID: sha})
	gh.AddPR("octo/widgets", testkit.PR{Number: 2, Title: "closed", HeadRef: "feat", State: "CLOSED", HeadOID: sha})
	gh.AddPR("octo/widgets", testkit.PR{Number: 3, Title: "fork", HeadRef: "feat", HeadRepo: "mona/widgets", HeadOID: sha})
	gh.AddPR("octo/widgets", testkit.PR{Number: 4, Title: "other", HeadRef: "other", HeadOID: sha})
	gh.AddPR("octo/gadgets", testkit.PR{Number: 5, Title: "other repo", HeadRef: "feat", HeadOID: sha})
	c := newClient(t, gh)

	got, err := c.OpenPullRequests(context.Background(), repo, "feat")

	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Number != 1 || got[1].Number != 3 || got[1].HeadRepository != "mona/widgets" || !strings.HasSuffix(got[0].URL, "/pull/1") {
		t.Fatalf("got %+v, want the open PRs 1 and 3", got)
	}
	none, err := c.OpenPullRequests(context.Background(), repo, "nothing")
	if err != nil || len(none) != 0 {
		t.Fatalf("got %+v, %v", none, err)
	}
	if gh.Count("graphql") != 2 {
		t.Errorf("one query per lookup, got %d", gh.Count("graphql"))
	}
}
