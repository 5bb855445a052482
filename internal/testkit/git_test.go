package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewRepoBuildsWhatPushesWouldMake: buildRepo writes the remote's
// objects and refs and the clone's origin and upstream itself; what it
// makes must be what git's own pushes make, to git, in a directory and
// on a branch whose names git config has to quote.
func TestNewRepoBuildsWhatPushesWouldMake(t *testing.T) {
	t.Setenv("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
	t.Setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
	base := map[string]string{"README.md": "# r\n", "dir/a.go": "package dir\n"}
	head := map[string]string{"dir/a.go": "package dir\n\nvar A = 1\n", "b.txt": "b\n"}
	repo := func(n string) *Repo {
		root := filepath.Join(t.TempDir(), n+` odd #;"\ dir `)
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		return &Repo{Remote: filepath.Join(root, "remote.git"), Clone: filepath.Join(root, "work"), Base: "main", Head: "feature/x#1"}
	}
	pushed, built := repo("pushed"), repo("built")
	initRepos(t, pushed)
	pushRepo(t, pushed, base, head)
	buildRepo(t, built, base, head)

	// What git says of each, the built repository's paths named as the
	// pushed one's.
	state := func(r *Repo) string {
		var b strings.Builder
		for _, c := range []struct {
			dir  string
			args []string
		}{
			{r.Remote, []string{"for-each-ref", "--format=%(objectname) %(refname)"}},
			{r.Remote, []string{"symbolic-ref", "HEAD"}},
			{r.Remote, []string{"fsck", "--full", "--strict", "--no-progress", "--no-dangling"}},
			{r.Remote, []string{"config", "--local", "--list"}},
			{r.Clone, []string{"for-each-ref", "--format=%(objectname) %(refname) %(upstream)"}},
			{r.Clone, []string{"status", "--porcelain", "--branch"}},
			{r.Clone, []string{"rev-parse", "@{upstream}", "HEAD"}},
			{r.Clone, []string{"fsck", "--full", "--strict", "--no-progress", "--no-dangling"}},
			{r.Clone, []string{"config", "--local", "--list"}},
			{r.Clone, []string{"ls-remote", "origin"}},
			{r.Clone, []string{"diff", r.Base + "..." + r.Head}},
		} {
			b.WriteString("$ git " + strings.Join(c.args, " ") + "\n" + Git(t, c.dir, c.args...) + "\n")
		}
		config, err := os.ReadFile(filepath.Join(r.Clone, ".git", "config"))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("$ cat .git/config\n" + string(config))
		return strings.ReplaceAll(strings.ReplaceAll(b.String(), configValue(r.Remote), "REMOTE"), r.Remote, "REMOTE")
	}
	if p, b := state(pushed), state(built); p != b {
		t.Errorf("built by pushes:\n%s\nbuilt without:\n%s", p, b)
	}
	if !strings.Contains(state(built), "feature/x#1...origin/feature/x#1") {
		t.Errorf("the clone's head branch does not track the remote's:\n%s", state(built))
	}
}
