package git

import (
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// A branch's runs are keyed by its origin as host/owner/repo, however the
// remote is spelled, so two clones of a repository share a branch's record.
func TestOriginIDNamesTheOrigin(t *testing.T) {
	dir := t.TempDir()
	testkit.Git(t, dir, "init", "--quiet")
	g, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.OriginID(t.Context()); got != g.Dir {
		t.Errorf("no origin: %q, want the directory", got)
	}
	testkit.Git(t, dir, "remote", "add", "origin", "git@github.com:Octo/Widgets.git")
	for _, url := range []string{"git@github.com:Octo/Widgets.git", "https://github.com/octo/widgets", "ssh://git@github.com/octo/widgets.git", "https://user@github.com/octo/widgets.git/"} {
		testkit.Git(t, dir, "remote", "set-url", "origin", url)
		if got := g.OriginID(t.Context()); got != "github.com/octo/widgets" {
			t.Errorf("%s: %q", url, got)
		}
	}
}
