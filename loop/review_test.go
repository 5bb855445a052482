package loop

import (
	"context"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/localchange"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/state"
)

// The review step is one for a pull request and a local branch
// (loop.review over prSource and branchSource): the same diff and the
// same reviewer's answer give the same findings, IDs, counts, consensus
// and coverage, and only the PR's task names a pull request.
func TestPRAndBranchSourcesGiveTheSameReview(t *testing.T) {
	const d = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,2 @@\n package a\n+var leak = open()\n"
	line := 2
	raised := bug
	raised.Line = &line
	files := []github.ChangedFile{{Path: "a.go", Additions: 1}}

	h := newHarness(t)
	h.gh.diff, h.gh.pr.Files, h.gh.pr.ChangedFiles, h.gh.pr.Additions = d, files, 1, 1
	h.opts.DryRun, h.opts.CanPush = true, false
	h.reviewer.answers = []string{reviewerAnswer(raised)}
	h.analyzer.answers = []string{analyzerAnswer()}
	pr, err := h.run(t)
	if err != nil {
		t.Fatal(err)
	}

	local := &scripted{answers: []string{reviewerAnswer(raised)}}
	ch := localchange.Change{Branch: "f", Base: "origin/main", MergeBase: "bbbbbbbb", Head: "aaaaaaaa", Tree: "t", Diff: []byte(d), Files: files}
	res, err := ReviewLocal(context.Background(), LocalOptions{Key: state.LocalKey("h/o/r", "f"), Change: ch, Store: h.store,
		Reviewers: []roles.Role{{Name: "reviewer-1", Model: "openai/a", LLM: local}}})
	if err != nil {
		t.Fatal(err)
	}

	rr := pr.Rounds[0]
	if ids(rr.Findings) != ids(res.Findings) || len(res.Findings) != 1 || rr.Counts != res.Counts || rr.Consensus != res.Consensus || rr.Coverage.String() != res.Coverage.String() {
		t.Errorf("PR: %s %+v %s %q\nbranch: %s %+v %s %q", ids(rr.Findings), rr.Counts, rr.Consensus, rr.Coverage, ids(res.Findings), res.Counts, res.Consensus, res.Coverage)
	}
	if task := h.reviewer.tasks[0]; !strings.Contains(task, "## PR #5: ") || !strings.Contains(task, "- URL: https://x/pull/5") {
		t.Errorf("the PR's task does not name it:\n%s", task)
	}
	task := local.tasks[0]
	if strings.Contains(task, "PR #") || strings.Contains(task, "URL:") || !strings.Contains(task, "## Local changes on f\n") {
		t.Errorf("the branch's task names a pull request or a URL:\n%s", task)
	}
}

func ids(fs []finding.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return strings.Join(out, ",")
}
