package cmd

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

func TestParseReviewLoop(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string // "" = parses
		want    ReviewLoopOptions
	}{
		{args: []string{"--yes"}, want: ReviewLoopOptions{Yes: true}},
		{args: []string{"--pr", "24", "--yes"}, want: ReviewLoopOptions{PR: 24, Yes: true}},
		{args: []string{"--pr=24", "--dry-run", "--json", "-R", "o/r"}, want: ReviewLoopOptions{PR: 24, DryRun: true, Export: &cmdutil.Exporter{}, RepoFlag: "o/r"}},
		// A bare --json before the PR leaves it alone; before a list of
		// fields, takes them.
		{args: []string{"--yes", "--json", "7"}, want: ReviewLoopOptions{PR: 7, Yes: true, Export: &cmdutil.Exporter{}}},
		{args: []string{"--yes", "--json", "outcome,rounds", "7"}, want: ReviewLoopOptions{PR: 7, Yes: true, Export: &cmdutil.Exporter{Fields: []string{"outcome", "rounds"}}}},
		{args: []string{"--yes", "--jq", ".pr.url", "7"}, want: ReviewLoopOptions{PR: 7, Yes: true, Export: &cmdutil.Exporter{JQ: ".pr.url"}}},
		{args: []string{"--pr"}, wantErr: "flag needs an argument"},
		{args: []string{"--pr", "abc", "--yes"}, want: ReviewLoopOptions{Branch: "abc", Yes: true}},
		{args: []string{"--pr", "0", "--yes"}, wantErr: "invalid pull request \"0\""},
		{args: []string{"--pr", "-3", "--yes"}, wantErr: "invalid pull request \"-3\""},
		{args: []string{"--pr", "24", "extra", "--yes"}, wantErr: "as an argument or with --pr, not both"},
		{args: []string{"7", "foo"}, wantErr: "unexpected argument \"foo\""},
		{args: []string{"--force", "--yes"}, wantErr: "unknown flag: --force"},
		{args: []string{"--yes", "-R", "nope"}, wantErr: "invalid value for --repo"},
		{args: []string{"--pr", "24"}, wantErr: "pass --yes to push without asking"},
		// The Action's flag; with --dry-run it parses, and the run publishes nothing.
		{args: []string{"7", "--yes", "--check-run"}, want: ReviewLoopOptions{PR: 7, Yes: true, CheckRun: true}},
		{args: []string{"--check-run", "--dry-run", "7"}, want: ReviewLoopOptions{PR: 7, DryRun: true, CheckRun: true}},
		{args: []string{"--check-run=false", "--yes", "7"}, want: ReviewLoopOptions{PR: 7, Yes: true}},
		{args: []string{"--check-run=maybe", "--yes"}, wantErr: "invalid argument \"maybe\" for \"--check-run\""},
		{args: []string{"--yes", "--evidence", "out/", "--evidence", "SARIF:lint.json", "--evidence", "c:/x.txt", "7"},
			want: ReviewLoopOptions{PR: 7, Yes: true, Evidence: []evidenceSpec{{Path: "out/"}, {Format: "sarif", Path: "lint.json"}, {Path: "c:/x.txt"}}}},
		{args: []string{"--yes", "--evidence", "sarif:", "7"}, wantErr: "names no file"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps()
			opts, err := parseReviewLoop(d, tc.args)
			if tc.wantErr != "" {
				cmdtest.WantUsageError(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, want := *opts, tc.want
			ge, we := fmt.Sprintf("%+v", got.Export), fmt.Sprintf("%+v", want.Export)
			got.Export, want.Export = nil, nil
			if !reflect.DeepEqual(got, want) || ge != we {
				t.Errorf("got %+v %s, want %+v %s", got, ge, want, we)
			}
		})
	}
}

func TestReviewLoopHelp(t *testing.T) {
	d, out, _ := cmdtest.Deps()
	if err := Run(t.Context(), []string{"review-loop", "--help"}, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Usage: gh ocdx review-loop [<number> | <url> | <branch>] [--yes]", "--template template", "--pr string", "--dry-run", "--max-tokens N", "--check-run", "Exit codes"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}
