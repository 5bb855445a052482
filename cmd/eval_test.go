package cmd

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/eval"
)

// eval history's flags are checked before anything is read: a bad one is
// a usage error (exit 2).
func TestParseEval(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
		want    EvalOptions
	}{
		{args: nil, want: EvalOptions{Limit: defaultEvalLimit, Ref: "HEAD"}},
		{args: []string{"--list", "--json", "--limit", "5", "--after", "2025-06-01", "--ref", "trunk", "--cases", "c.json"},
			want: EvalOptions{List: true, JSON: true, Limit: 5, After: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), Ref: "trunk", Cases: "c.json"}},
		{args: []string{"--after", "June"}, wantErr: "invalid --after"},
		{args: []string{"--limit", "0"}, wantErr: "invalid --limit 0"},
		{args: []string{"--verifier", "gpt"}, wantErr: "invalid --verifier"},
		{args: []string{"--max-tokens", "-1"}, wantErr: "invalid --max-tokens"},
		{args: []string{"--ref", "--output=x"}, wantErr: "invalid --ref"},
		{args: []string{"extra"}, wantErr: `unexpected argument "extra"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := testDeps()
			opts, err := parseEval(d, tc.args)
			if tc.wantErr != "" {
				wantUsageError(t, err, tc.wantErr)
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

// --limit keeps the most recently merged cases, in their order; --after
// leaves out those merged before it first.
func TestNewestCases(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
	cs := []eval.Case{{PR: 1, Merged: day(5)}, {PR: 2, Merged: day(1)}, {PR: 3, Merged: day(9)}, {PR: 4, Merged: day(3)}}
	pick := func(got []eval.Case) (prs []int) {
		for _, c := range got {
			prs = append(prs, c.PR)
		}
		return prs
	}
	if got := pick(newest(cs, time.Time{}, 2)); fmt.Sprint(got) != "[1 3]" {
		t.Errorf("--limit 2: %v, want [1 3]", got)
	}
	if got := pick(newest(cs, day(2), 10)); fmt.Sprint(got) != "[1 3 4]" {
		t.Errorf("--after: %v, want [1 3 4]", got)
	}
	if len(cs) != 4 || cs[1].PR != 2 {
		t.Errorf("the list given was changed: %v", pick(cs))
	}
}
