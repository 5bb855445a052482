package replycmd

import (
	"errors"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

// reply's flags are checked before any request: a bound above zero, a
// provider/model name, and --yes where no one can be asked.
func TestParseReply(t *testing.T) {
	t.Setenv("GH_HOST", "")
	t.Setenv("GH_REPO", "octo/widgets")
	d, _, _ := cmdtest.Deps()
	o, err := Parse(d, []string{"24", "--yes", "--max-replies", "3", "--max-tokens", "9000", "--model", "openai/gpt-4.1", "--json", "answered,left"})
	if err != nil || o.PR != 24 || !o.Yes || o.MaxReplies != 3 || o.MaxTokens != 9000 || o.Model != "openai/gpt-4.1" || o.Export == nil || len(o.Export.Fields) != 2 {
		t.Fatalf("%+v, %v", o, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"24", "--yes", "--max-replies", "0"}, "invalid --max-replies 0"},
		{[]string{"24", "--yes", "--model", "gpt"}, "invalid --model"},
		{[]string{"24", "--yes", "--json", "nope"}, `Unknown JSON field: "nope"`},
	} {
		_, err := Parse(d, tc.args)
		var ue *cmdutil.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want a usage error saying %q", tc.args, err, tc.want)
		}
	}
	_, err = Parse(d, []string{"24"})
	if !errors.Is(err, cmdutil.ErrNoTerminal) {
		t.Errorf("without --yes and no terminal: %v", err)
	}
}
