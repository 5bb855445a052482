package cmd

import (
	"reflect"
	"testing"

	"github.com/ocdx/gh-ocdx/cmd/commandcmd"
	"github.com/ocdx/gh-ocdx/cmd/replycmd"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

// An /ocdx command runs a verb with the options the same intent gets on
// the command line: the verb's own parse, its defaults and its checks, the
// PR on its own host, and the command's token budget (once lost by a fix
// built by hand). GH_HOST names another host than the PR's.
func TestOcdxCommandsBuildTheVerbsOwnOptions(t *testing.T) {
	t.Setenv("GH_HOST", "other.example")
	t.Setenv("GH_REPO", "")
	repo := github.Repo{Host: "ghe.example", Owner: "octo", Name: "widgets"}
	for _, budget := range []int64{0, 4000} {
		argv := commandcmd.Argv(repo, 24, budget)
		cli := []string{"24", "--yes", "-R", "ghe.example/octo/widgets"}
		if budget > 0 {
			cli = append(cli, "--max-tokens", "4000")
		}
		d, _, _ := cmdtest.Deps()

		review, err := parseReviewLoop(d, argv)
		want, werr := parseReviewLoop(d, cli)
		if err != nil || werr != nil || !reflect.DeepEqual(review, want) {
			t.Errorf("/ocdx review: %+v, %v; gh ocdx review-loop %v: %+v, %v", review, err, cli, want, werr)
		}
		if review == nil || review.MaxTokens != budget || review.PR != 24 || review.RepoFlag != "ghe.example/octo/widgets" || !review.Yes {
			t.Errorf("/ocdx review with a budget of %d: %+v", budget, review)
		}

		fix, err := parseFix(d, argv)
		wantFix, werr := parseFix(d, cli)
		if err != nil || werr != nil || !reflect.DeepEqual(fix, wantFix) {
			t.Errorf("/ocdx fix: %+v, %v; gh ocdx fix %v: %+v, %v", fix, err, cli, wantFix, werr)
		}
		if fix == nil || fix.MaxTokens != budget || fix.PR != 24 || fix.Repo.Host != "ghe.example" || !fix.Yes {
			t.Errorf("/ocdx fix with a budget of %d: %+v", budget, fix)
		}

		reply, err := replycmd.Parse(d, argv)
		wantReply, werr := replycmd.Parse(d, cli)
		if err != nil || werr != nil || !reflect.DeepEqual(reply, wantReply) {
			t.Errorf("a reply: %+v, %v; gh ocdx reply %v: %+v, %v", reply, err, cli, wantReply, werr)
		}
		if reply == nil || reply.MaxTokens != budget || reply.PR != 24 || reply.Repo.Host != "ghe.example" || !reply.Yes {
			t.Errorf("a reply with a budget of %d: %+v", budget, reply)
		}
	}
}
