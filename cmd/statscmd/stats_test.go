package statscmd

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cli/go-gh/v2/pkg/repository"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

func TestParseStats(t *testing.T) {
	jan31 := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		args    []string
		wantErr string
		want    ReadOptions
	}{
		{args: nil, want: ReadOptions{Limit: defaultStatsLimit}},
		{args: []string{"--limit", "500"}, want: ReadOptions{Limit: 500}},
		{args: []string{"-L", "7"}, want: ReadOptions{Limit: 7}},
		{args: []string{"--since", "2026-01-31"}, want: ReadOptions{Limit: defaultStatsLimit, Since: jan31}},
		{args: []string{"--since", "2026-01-31T12:00:00Z"}, want: ReadOptions{Limit: defaultStatsLimit, Since: jan31.Add(12 * time.Hour)}},
		{args: []string{"-R", "cli/cli"}, want: ReadOptions{Limit: defaultStatsLimit, Repo: repository.Repository{Host: "github.com", Owner: "cli", Name: "cli"}}},
		{args: []string{"--json", "models,prs"}, want: ReadOptions{Limit: defaultStatsLimit, Export: &cmdutil.Exporter{Fields: []string{"models", "prs"}}}},
		{args: []string{"--json"}, want: ReadOptions{Limit: defaultStatsLimit, Export: &cmdutil.Exporter{}}},
		{args: []string{"--limit", "0"}, wantErr: "invalid --limit 0"},
		{args: []string{"--limit", "-3"}, wantErr: "invalid --limit -3"},
		{args: []string{"--limit", "many"}, wantErr: "invalid argument"},
		{args: []string{"--since", "yesterday"}, wantErr: `invalid --since "yesterday"`},
		{args: []string{"--since", "31/01/2026"}, wantErr: "invalid --since"},
		{args: []string{"-R", "nope"}, wantErr: "invalid value for --repo"},
		{args: []string{"7"}, wantErr: `unexpected argument "7"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps()
			opts, err := Parse(d, tc.args)
			if tc.wantErr != "" {
				cmdtest.WantUsageError(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, want := opts.ReadOptions, tc.want
			ge, we := fmt.Sprintf("%+v", got.Export), fmt.Sprintf("%+v", want.Export)
			got.Export, want.Export = nil, nil
			if fmt.Sprint(got) != fmt.Sprint(want) || ge != we {
				t.Errorf("got %+v, want %+v", *opts, tc.want)
			}
		})
	}
}

// An unknown --json field is a usage error listing every field, as gh's.
func TestParseStatsUnknownJSONField(t *testing.T) {
	d, _, _ := cmdtest.Deps()
	_, err := Parse(d, []string{"--json", "advise"})
	var ue *cmdutil.UsageError
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, `Unknown JSON field: "advise"`) || !strings.Contains(ue.Msg, "\n  advice\n") {
		t.Errorf("got %v, want a usage error naming the field and listing advice", err)
	}
}

// The help says what stats counts, where it reads from, and shows
// examples of every flag.
func TestStatsHelp(t *testing.T) {
	d, out, _ := cmdtest.Deps()
	if _, err := Parse(d, []string{"--help"}); !errors.Is(err, cmdutil.ErrHelpShown) {
		t.Fatal(err)
	}
	for _, want := range []string{"Usage: gh ocdx stats [-R OWNER/REPO] [--limit N] [--since DATE]", "--limit", "--since", "--json",
		"Examples:\n  gh ocdx stats\n", "--since 2026-01-01", "trustedLogins"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stats --help lacks %q:\n%s", want, out.String())
		}
	}
}
