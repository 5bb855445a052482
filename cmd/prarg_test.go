package cmd

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/cmd/statecmd"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

// A PR is named as gh pr view takes it, by every PR verb.
func TestParsePRArgument(t *testing.T) {
	t.Setenv("GH_HOST", "")
	for _, tc := range []struct {
		verb    string
		args    []string
		number  int
		branch  string
		repo    string // HOST/OWNER/REPO; "" = none selected
		wantErr string
	}{
		{verb: "review-pr", args: []string{"#7", "--print"}, number: 7},
		{verb: "review-pr", args: []string{"feat/limit", "--print"}, branch: "feat/limit"},
		{verb: "review-pr", args: []string{"--print"}},
		{verb: "review-loop", args: []string{"7", "--yes"}, number: 7},
		{verb: "review-loop", args: []string{"#7", "--yes"}, number: 7},
		{verb: "review-loop", args: []string{"feat/limit", "--yes"}, branch: "feat/limit"},
		{verb: "review-loop", args: []string{"--pr", "https://ghe.example/o/r/pull/7", "--yes"}, number: 7, repo: "ghe.example/o/r"},
		{verb: "review-loop", args: []string{"https://github.com/o/r/pull/7", "-R", "o/r", "--yes"}, number: 7, repo: "github.com/o/r"},
		{verb: "fix", args: []string{"https://github.com/o/r/pull/7", "--yes"}, number: 7, repo: "github.com/o/r"},
		{verb: "fix", args: []string{"https://github.com/o/r/pull/7", "-R", "o/other", "--yes"}, wantErr: "the URL names github.com/o/r but --repo names github.com/o/other"},
		{verb: "fix", args: []string{"--pr", "https://github.com/o/r/pull/x", "--yes"}, wantErr: "not a pull request URL"},
		{verb: "fix", args: []string{"#", "--yes"}, wantErr: "invalid pull request \"#\""},
		{verb: "fix", args: []string{"7", "--pr", "8", "--yes"}, wantErr: "not both"},
		{verb: "state show", args: []string{"#31"}, number: 31},
		{verb: "state show", args: []string{"--pr", "https://github.com/o/r/pull/31"}, number: 31, repo: "github.com/o/r"},
		{verb: "state show", args: []string{"feat/x"}, wantErr: "by number (24) or URL"},
		{verb: "state clear", args: []string{"31", "--yes"}, number: 31},
		{verb: "state clear", args: []string{"--yes"}, wantErr: "missing argument"},
	} {
		t.Run(tc.verb+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps()
			var number int
			var branch, repo string
			var err error
			switch tc.verb {
			case "review-pr":
				var o *ReviewPROptions
				if o, err = parseReviewPR(d, tc.args); err == nil {
					number, branch, repo = o.Number, o.Branch, repoOf(o.Repo.Host, o.Repo.Owner, o.Repo.Name)
				}
			case "review-loop":
				var o *ReviewLoopOptions
				if o, err = parseReviewLoop(d, tc.args); err == nil {
					number, branch = o.PR, o.Branch
					r, _ := cmdutil.ParseRepoFlag(o.RepoFlag, d.DefaultHost())
					repo = repoOf(r.Host, r.Owner, r.Name)
				}
			case "fix":
				var o *FixOptions
				if o, err = parseFix(d, tc.args); err == nil {
					number, branch, repo = o.PR, o.Branch, repoOf(o.Repo.Host, o.Repo.Owner, o.Repo.Name)
				}
			case "state show":
				var o *statecmd.ShowOptions
				if o, err = statecmd.ParseShow(d, tc.args); err == nil {
					number = o.PR
					r, _ := cmdutil.ParseRepoFlag(o.Repo, d.DefaultHost())
					repo = repoOf(r.Host, r.Owner, r.Name)
				}
			case "state clear":
				var o *statecmd.ClearOptions
				if o, err = statecmd.ParseClear(d, tc.args); err == nil {
					number = o.PR
				}
			}
			if tc.wantErr != "" {
				cmdtest.WantUsageError(t, err, tc.wantErr)
				if strings.Contains(err.Error(), "strconv") {
					t.Errorf("Go internals in the error: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if number != tc.number || branch != tc.branch || repo != tc.repo {
				t.Errorf("got #%d branch %q repo %q; want #%d branch %q repo %q", number, branch, repo, tc.number, tc.branch, tc.repo)
			}
		})
	}
}

func repoOf(host, owner, name string) string {
	if name == "" {
		return ""
	}
	return host + "/" + owner + "/" + name
}

// A mistyped verb is answered with the verb meant, as gh does.
func TestMistypedVerbSuggestsTheVerb(t *testing.T) {
	for typed, want := range map[string]string{"reveiw-pr": "review-pr", "review-lop": "review-loop", "stat": "state", "conf": "config"} {
		d, _, _ := cmdtest.Deps()
		err := Run(t.Context(), []string{typed}, d)
		cmdtest.WantUsageError(t, err, `Did you mean "`+want+`"?`)
		// The usage line and where the help is, not the whole help.
		if msg := err.Error(); !strings.Contains(msg, "Run 'gh ocdx --help' for more.") || strings.Contains(msg, "Exit codes") {
			t.Errorf("%s: %s", typed, msg)
		}
	}
	d, _, _ := cmdtest.Deps()
	if err := Run(t.Context(), []string{"frobnicate"}, d); err == nil || strings.Contains(err.Error(), "Did you mean") {
		t.Errorf("nothing close to suggest: %v", err)
	}
}

// A usage error shows the verb's usage line and where its help is, not the
// whole help.
func TestUsageErrorShowsTheUsageLineOnly(t *testing.T) {
	d, _, _ := cmdtest.Deps()
	err := Run(t.Context(), []string{"review-loop", "--bogus", "--yes"}, d)
	cmdtest.WantUsageError(t, err, "Run 'gh ocdx review-loop --help' for more.")
	if msg := err.Error(); !strings.Contains(msg, "Usage: gh ocdx review-loop [<number> | <url> | <branch>]") || strings.Contains(msg, "Flags:") || strings.Contains(msg, "Examples:") {
		t.Errorf("want the usage line only:\n%s", msg)
	}
}
