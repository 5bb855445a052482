package describecmd

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

func TestParseDescribe(t *testing.T) {
	t.Setenv("GH_REPO", "octo/widgets")
	for _, tc := range []struct {
		args    []string
		wantErr string // "" = parses
		check   func(*Options) bool
	}{
		{args: []string{}, check: func(o *Options) bool { return o.Number == 0 && !o.Post && !o.EditBody && o.Export == nil }},
		{args: []string{"24", "--post", "--edit-body", "--diagram"}, check: func(o *Options) bool { return o.Number == 24 && o.Post && o.EditBody && o.Diagram }},
		{args: []string{"feature/login"}, check: func(o *Options) bool { return o.Branch == "feature/login" }},
		{args: []string{"https://github.com/cli/cli/pull/99"}, check: func(o *Options) bool { return o.Number == 99 && o.Repo.Name == "cli" }},
		{args: []string{"--json", "24"}, check: func(o *Options) bool { return o.Number == 24 && o.Export != nil }},
		{args: []string{"24", "--json", "summary,issues"}, check: func(o *Options) bool { return o.Export != nil && len(o.Export.Fields) == 2 }},
		{args: []string{"24", "--max-tokens", "5000", "--model", "openai/gpt-4.1"}, check: func(o *Options) bool { return o.MaxTokens == 5000 && o.Model == "openai/gpt-4.1" }},
		{args: []string{"24", "--model", "gpt-4"}, wantErr: "invalid --model"},
		{args: []string{"24", "--json", "summary,nope"}, wantErr: `Unknown JSON field: "nope"`},
		{args: []string{"24", "--max-tokens", "0"}, wantErr: "--max-tokens"},
		{args: []string{"24", "--yes"}, wantErr: "unknown flag: --yes"},
		{args: []string{"1", "2"}, wantErr: `unexpected argument "2"`},
		{args: []string{"https://github.com/cli/cli/pull/99", "-R", "a/b"}, wantErr: "drop one"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps()
			opts, err := Parse(d, tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want an error containing %q, got %v", tc.wantErr, err)
				}
				if cmdutil.ExitCode(t.Context(), err) != 2 {
					t.Errorf("exit %d, want 2", cmdutil.ExitCode(t.Context(), err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(opts) {
				t.Errorf("options %+v", opts)
			}
		})
	}
}

// A bad invocation exits 2 before any request: GitHub and the model are
// at a closed port, and nothing is read.
func TestDescribeBadFlagsExit2BeforeAnyWork(t *testing.T) {
	d, out, errOut := cmdtest.Deps()
	env := map[string]string{"GH_HOST": "127.0.0.1:1", "GH_TOKEN": "ghp_notused", "GH_REPO": "octo/widgets",
		"OCDX_CONFIG": "/nonexistent/config.json", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_API_KEY": "k"}
	d.Getenv = func(k string) string { return env[k] }
	_, err := Parse(d, []string{"24", "--diagram", "--bogus"})
	if cmdutil.ExitCode(t.Context(), err) != 2 || !strings.Contains(err.Error(), "unknown flag: --bogus") {
		t.Fatalf("exit %d: %v\n%s", cmdutil.ExitCode(t.Context(), err), err, errOut)
	}
	if out.Len() != 0 {
		t.Errorf("stdout: %q", out)
	}
}
