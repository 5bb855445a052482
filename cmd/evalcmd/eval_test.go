package evalcmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

// eval history's flags are checked before anything is read: a bad one is
// a usage error (exit 2).
func TestParseEval(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
		want    Options
	}{
		{args: nil, want: Options{Limit: defaultEvalLimit, Ref: "HEAD"}},
		{args: []string{"--list", "--limit", "5", "--after", "2025-06-01", "--ref", "trunk", "--cases", "c.json"},
			want: Options{List: true, Limit: 5, After: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), Ref: "trunk", Cases: "c.json"}},
		{args: []string{"--json", "rows", "--template", "x", "--jq", "."}, wantErr: "--jq and --template cannot be used together"},
		{args: []string{"--after", "June"}, wantErr: "invalid --after"},
		{args: []string{"--limit", "0"}, wantErr: "invalid --limit 0"},
		{args: []string{"--verifier", "gpt"}, wantErr: "invalid --verifier"},
		{args: []string{"--max-tokens", "-1"}, wantErr: "invalid --max-tokens"},
		{args: []string{"--ref", "--output=x"}, wantErr: "invalid --ref"},
		{args: []string{"extra"}, wantErr: `unexpected argument "extra"`},
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
			if *opts != tc.want {
				t.Errorf("got %+v, want %+v", *opts, tc.want)
			}
		})
	}
}

// --json selects fields as every verb's does: the cases' with --list, the
// report's without, through --jq or a template when asked.
func TestParseEvalJSONFields(t *testing.T) {
	d, _, _ := cmdtest.Deps()
	opts, err := Parse(d, []string{"--list", "--json", "bugs,clean", "--jq", ".bugs"})
	if err != nil {
		t.Fatal(err)
	}
	if e := opts.Export; e == nil || strings.Join(e.Fields, ",") != "bugs,clean" || e.JQ != ".bugs" {
		t.Errorf("export %+v", e)
	}
	if opts, err = Parse(d, []string{"--json"}); err != nil || opts.Export == nil || opts.Export.Fields != nil {
		t.Errorf("a bare --json: %+v, %v", opts, err)
	}
	// A field of the other output is unknown here: a usage error (exit 2)
	// listing this output's fields.
	for _, args := range [][]string{{"--json", "bugs"}, {"--list", "--json", "rows"}} {
		_, err := Parse(d, args)
		if err == nil || cmdutil.ExitCode(context.Background(), err) != 2 || !strings.Contains(err.Error(), "Unknown JSON field") {
			t.Errorf("%q: %v (exit %d)", args, err, cmdutil.ExitCode(context.Background(), err))
		}
	}
}
