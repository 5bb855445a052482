package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

func TestParseReviewPR(t *testing.T) {
	t.Setenv("GH_REPO", "octo/widgets")
	t.Setenv("GH_HOST", "ghe.example")
	for _, tc := range []struct {
		args     []string
		wantErr  string // "" = parses
		wantRepo string
		wantHost string
		wantNum  int
	}{
		{args: []string{"24", "--context-only"}, wantRepo: "octo/widgets", wantHost: "ghe.example", wantNum: 24},
		{args: []string{"--context-only", "-R", "other/repo", "7"}, wantRepo: "other/repo", wantNum: 7},
		{args: []string{"--repo=h.example/o/r", "7", "--context-only"}, wantRepo: "o/r", wantHost: "h.example", wantNum: 7},
		{args: []string{"https://github.com/cli/cli/pull/99", "--context-only"}, wantRepo: "cli/cli", wantHost: "github.com", wantNum: 99},
		{args: []string{"https://github.com/cli/cli/issues/99", "--context-only"}, wantErr: "invalid pull request"},
		{args: []string{"https://github.com/cli/cli/pull/99", "-R", "a/b", "--context-only"}, wantErr: "drop one"},
		{args: []string{"24"}, wantErr: "pass --yes to post without asking, or --print"},
		{args: []string{"24", "--yes", "--print"}, wantErr: "choose one"},
		{args: []string{"24", "--print", "--model", "gpt-4"}, wantErr: "invalid --model"},
		{args: []string{"-1", "--context-only"}, wantErr: "unknown shorthand flag"},
		{args: []string{"--context-only"}, wantRepo: "octo/widgets", wantNum: 0},
		{args: []string{"1", "2", "--context-only"}, wantErr: "unexpected argument \"2\""},
		{args: []string{"1", "--context-only", "-R", "nope"}, wantErr: "invalid value for --repo"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps()
			opts, err := parseReviewPR(d, tc.args)
			if tc.wantErr != "" {
				cmdtest.WantUsageError(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := cmdutil.CurrentRepo(&cmdutil.Deps{Getenv: os.Getenv}, opts.Repo) // -R or the URL, else GH_REPO
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Owner + "/" + r.Name; got != tc.wantRepo || opts.Number != tc.wantNum {
				t.Errorf("got %s #%d", got, opts.Number)
			}
			if tc.wantHost != "" && r.Host != tc.wantHost {
				t.Errorf("host %q, want %q", r.Host, tc.wantHost)
			}
		})
	}
}

func TestParseReviewPREvent(t *testing.T) {
	t.Setenv("GH_REPO", "octo/widgets")
	for _, tc := range []struct {
		args    []string
		want    github.ReviewEvent
		wantErr string
	}{
		{args: []string{"24", "--yes"}, want: ""}, // left to allowApprove
		{args: []string{"24", "--yes", "--event", "comment"}, want: github.CommentOnly},
		{args: []string{"24", "--print", "--event=request-changes"}, want: github.RequestChanges},
		{args: []string{"24", "--yes", "--event", "approve"}, want: github.Approve},
		{args: []string{"24", "--yes", "--event", "Approve"}, want: github.Approve},
		{args: []string{"24", "--yes", "--event", "approved"}, wantErr: `invalid --event "approved": use comment, request-changes or approve`},
		{args: []string{"24", "--yes", "--event", ""}, wantErr: ""},
		{args: []string{"24", "--yes", "--event"}, wantErr: "flag needs an argument"},
		{args: []string{"24", "--event", "lgtm"}, wantErr: "invalid --event"}, // before the terminal check
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps()
			opts, err := parseReviewPR(d, tc.args)
			if tc.wantErr != "" {
				cmdtest.WantUsageError(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if opts.Event != tc.want {
				t.Errorf("Event = %q, want %q", opts.Event, tc.want)
			}
		})
	}
}

func TestHelpGoesToStdout(t *testing.T) {
	d, out, errOut := cmdtest.Deps()
	if err := Run(t.Context(), []string{"review-pr", "--help"}, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Usage: gh ocdx review-pr") || errOut.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}
