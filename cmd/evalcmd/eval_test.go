package evalcmd

import (
	"strings"
	"testing"
	"time"

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
		{args: []string{"--list", "--json", "--limit", "5", "--after", "2025-06-01", "--ref", "trunk", "--cases", "c.json"},
			want: Options{List: true, JSON: true, Limit: 5, After: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), Ref: "trunk", Cases: "c.json"}},
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
