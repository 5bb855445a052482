package fix

import (
	"context"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/github"
)

func TestRunGivesTheAgentTheRepositoryInstructionsAndRecordsItsCost(t *testing.T) {
	f := newFixture(t, calls(editA), calls(commitA), answer([]string{"SEC-00000001"}, []string{"QUAL-0000002"}))
	f.opts.Change.Files = []github.ChangedFile{{Path: "b.txt"}}
	f.opts.Policy = &config.Policy{Instructions: "House rule: commit messages say why.",
		Paths: []config.PathRule{{Glob: "*.txt", Instructions: "TXT rule: one word a line."}, {Glob: "api/**", Instructions: "API rule."}}}
	f.opts.Price = &config.Price{Input: 1000, CachedInput: 1000, Output: 1000}

	if _, err := Run(context.Background(), f.opts); err != nil {
		t.Fatalf("%v\n%s", err, f.log)
	}
	task := f.m.reqs[0].Messages[0].Text
	for _, want := range []string{"### Repository instructions", "House rule: commit messages say why.", "`*.txt` (`b.txt`)", "TXT rule"} {
		if !strings.Contains(task, want) {
			t.Errorf("the task lacks %q:\n%s", want, task)
		}
	}
	if strings.Contains(task, "API rule") {
		t.Error("the task holds the rule of files the PR does not change")
	}
	pr, _ := f.store.PR(f.run.Key())
	// Three calls of 100 in and 10 out at $1000 per million tokens.
	if u := pr.Runs[0].Rounds[0].Usage; len(u) != 1 || u[0].CostUSD != 0.33 {
		t.Errorf("recorded usage %+v", u)
	}
}
