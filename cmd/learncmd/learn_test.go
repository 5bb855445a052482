package learncmd

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

// learn takes stats' flags for what it reads, and --pr.
func TestParseLearn(t *testing.T) {
	d, _, _ := cmdtest.Deps()
	opts, err := Parse(d, []string{"--limit", "50", "--since", "2026-01-31", "--pr", "--json", "proposed"})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Limit != 50 || !opts.Since.Equal(time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)) || !opts.PR || opts.Export == nil {
		t.Errorf("got %+v", opts)
	}
	for args, want := range map[string]string{"--limit 0": "invalid --limit 0", "--since yesterday": `invalid --since "yesterday"`, "7": `unexpected argument "7"`} {
		d, _, _ := cmdtest.Deps()
		_, err := Parse(d, strings.Fields(args))
		cmdtest.WantUsageError(t, err, want)
	}
}

// The help says what counts, where the learnings go and that nothing
// applies until merged.
func TestLearnHelp(t *testing.T) {
	d, out, _ := cmdtest.Deps()
	if _, err := Parse(d, []string{"--help"}); !errors.Is(err, cmdutil.ErrHelpShown) {
		t.Fatal(err)
	}
	for _, want := range []string{"Usage: gh ocdx learn [-R OWNER/REPO] [--limit N] [--since DATE] [--pr]", "write permission", ".ocdx/learnings.md",
		"force", "once the change is merged", "Examples:\n  gh ocdx learn\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("learn --help lacks %q:\n%s", want, out.String())
		}
	}
}
