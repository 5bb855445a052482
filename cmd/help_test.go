package cmd

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

// Help reads as gh's: the usage line first, the examples after the flags,
// every line within the width (80 when stdout is not a terminal).
func TestHelpUsageFirstAndWrapped(t *testing.T) {
	for _, args := range [][]string{{"review-loop", "--help"}, {"fix", "-h"}, {"state", "show", "--help"}, {"config", "validate", "-h"}, {"--help"}, {"state"}, {"reply", "--help"}, {"command", "-h"}} {
		d, out, _ := cmdtest.Deps()
		if err := Run(t.Context(), args, d); err != nil {
			t.Fatal(err)
		}
		help := out.String()
		if !strings.HasPrefix(help, "Usage: gh ocdx ") {
			t.Errorf("%s: the usage line is not first:\n%s", args, help)
		}
		if e, f := strings.Index(help, "\nExamples:"), strings.Index(help, "\nFlags:"); e >= 0 && e < f {
			t.Errorf("%s: the examples come before the flags:\n%s", args, help)
		}
		for _, l := range strings.Split(help, "\n") {
			if utf8.RuneCountInString(l) > 80 {
				t.Errorf("%s: a line longer than 80: %q", args, l)
			}
		}
	}
}
