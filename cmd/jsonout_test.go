package cmd

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/cmd/statecmd"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

// gh's output flags on every verb with JSON: a field that is not one is a
// usage error listing the fields (as gh says it), whatever stands around
// it; a field asked for is always in the output.
func TestJSONFieldsAsGh(t *testing.T) {
	t.Setenv("GH_HOST", "")
	parse := map[string]func(*cmdutil.Deps, []string) (*cmdutil.Exporter, error){
		"review-loop": func(d *cmdutil.Deps, a []string) (*cmdutil.Exporter, error) {
			o, err := parseReviewLoop(d, append(a, "--yes"))
			if err != nil {
				return nil, err
			}
			return o.Export, nil
		},
		"fix": func(d *cmdutil.Deps, a []string) (*cmdutil.Exporter, error) {
			o, err := parseFix(d, append(a, "--yes"))
			if err != nil {
				return nil, err
			}
			return o.Export, nil
		},
		"review": func(d *cmdutil.Deps, a []string) (*cmdutil.Exporter, error) {
			o, err := parseReview(d, a)
			if err != nil {
				return nil, err
			}
			return o.Export, nil
		},
		"state show": func(d *cmdutil.Deps, a []string) (*cmdutil.Exporter, error) {
			o, err := statecmd.ParseShow(d, a)
			if err != nil {
				return nil, err
			}
			return o.Export, nil
		},
	}
	for _, tc := range []struct {
		verb    string
		args    []string
		bad     string   // the unknown field; "" parses
		fields  []string // selected
		listing string   // a field the error lists
	}{
		{verb: "review-loop", args: []string{"24", "--json", "outcom"}, bad: "outcom", listing: "  outcome\n"},
		{verb: "review-loop", args: []string{"--json", "outcom", "24"}, bad: "outcom", listing: "  dryRun\n"},
		{verb: "review-loop", args: []string{"--json", "outcome,nope"}, bad: "nope", listing: "  wouldPost"},
		{verb: "review-loop", args: []string{"--json=partial,resumed", "7"}, fields: []string{"partial", "resumed"}},
		{verb: "review-loop", args: []string{"--json", "7"}, fields: nil},
		{verb: "review-loop", args: []string{"--json", "outcome,outcome"}, fields: []string{"outcome"}},
		{verb: "fix", args: []string{"24", "--json", "status,bogus"}, bad: "bogus", listing: "  dryRun\n"},
		{verb: "review", args: []string{"--json", "x"}, bad: "x", listing: "  findings\n"},
		{verb: "state show", args: []string{"24", "--json", "lastRun"}, bad: "lastRun", listing: "  wip"},
		{verb: "state show", args: []string{"--json", "lastRun"}, fields: []string{"lastRun"}},
		{verb: "state show", args: []string{"--json", "runs", "24"}, fields: []string{"runs"}},
	} {
		t.Run(tc.verb+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := cmdtest.Deps()
			e, err := parse[tc.verb](d, tc.args)
			if tc.bad == "" {
				if err != nil || e == nil || !slices.Equal(e.Fields, tc.fields) {
					t.Fatalf("fields %v, %v; want %v", e, err, tc.fields)
				}
				return
			}
			var ue *cmdutil.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("want a usage error; got %v", err)
			}
			want := "Unknown JSON field: \"" + tc.bad + "\"\nAvailable fields:\n  "
			if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg+"\n", tc.listing) || strings.Contains(msg, "pull request") {
				t.Errorf("got\n%s\nwant it to start %q and list %q", msg, want, tc.listing)
			}
		})
	}
}
