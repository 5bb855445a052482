package findingcmd

import (
	"slices"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

// dismiss and restore take an optional pull request, then finding IDs
// (each once); anything that is not an ID, a reason naming a finding, or
// --branch with a pull request is a usage error before any request.
func TestParseFindingVerbs(t *testing.T) {
	t.Setenv("GH_HOST", "")
	t.Setenv("GH_REPO", "octo/widgets")
	d, _, _ := cmdtest.Deps()
	o, err := ParseDismiss(d, []string{"24", "SEC-b0bf205b", "QUAL-0badf00d", "SEC-b0bf205b", "--reason", "bounded by the caller"})
	if err != nil || o.PR != 24 || !slices.Equal(o.IDs, []string{"SEC-b0bf205b", "QUAL-0badf00d"}) || o.Reason != "bounded by the caller" {
		t.Fatalf("dismiss: %+v, %v", o, err)
	}
	o, err = ParseDismiss(d, []string{"--branch", "feature/cache", "QUAL-0badf00d"})
	if err != nil || o.Local != "feature/cache" || o.PR != 0 || !slices.Equal(o.IDs, []string{"QUAL-0badf00d"}) {
		t.Fatalf("dismiss --branch: %+v, %v", o, err)
	}
	r, err := ParseRestore(d, []string{"https://github.com/o/r/pull/7", "QUAL-1a2b3c4d"})
	if err != nil || r.PR != 7 || r.Repo.Name != "r" || !slices.Equal(r.IDs, []string{"QUAL-1a2b3c4d"}) {
		t.Fatalf("restore: %+v, %v", r, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"24"}, "name the findings to dismiss by their IDs"},
		{[]string{"24", "SEC-b0bf205b", "nope"}, `"nope" is not a finding ID`},
		{[]string{"24", "SEC-b0bf205b", "--reason", "same as QUAL-0badf00d"}, "--reason names the finding QUAL-0badf00d"},
		{[]string{"24", "--branch", "feature/cache", "SEC-b0bf205b"}, `"24" is not a finding ID`},
		{[]string{"--branch", "feature/cache", "-R", "o/r", "SEC-b0bf205b"}, "-R does not apply"},
	} {
		_, err := ParseDismiss(d, tc.args)
		cmdtest.WantUsageError(t, err, tc.want)
	}
	_, err = ParseRestore(d, []string{"24"})
	cmdtest.WantUsageError(t, err, "name the refuted findings to restore by their IDs")
}
