package stateview

import (
	"encoding/json"
	"testing"

	"github.com/ocdx/gh-ocdx/state"
)

// state show --json names a pull request as every verb does, and a local
// review by its repository and branch; only the fields asked for.
func TestJSONNamesPullRequestsAsEveryVerb(t *testing.T) {
	list := []state.Summary{{Key: state.NewKey("github.com", "o", "r", 7), Runs: 2}, {Key: state.LocalKey("clone-id", "feature/a"), Runs: 1}}
	x, err := JSON(list, []string{"pr", "runs"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(x)
	want := `[{"pr":{"number":7,"repository":"o/r","url":"https://github.com/o/r/pull/7"},"runs":2},{"pr":{"branch":"feature/a","repository":"clone-id"},"runs":1}]`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
