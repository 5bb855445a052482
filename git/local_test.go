package git

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// A file changed in the second the index was written, to the same size,
// is in the snapshot: the snapshot's copy of the index keeps the index's
// time, by which git knows to compare such a file's contents (racy git).
// Here the file's times are set as a same-second edit leaves them, with
// core.trustctime off so the ctime the test cannot set plays no part.
func TestSnapshotSeesAnEditInTheSecondOfTheCommit(t *testing.T) {
	dir := t.TempDir()
	testkit.Git(t, dir, "init", "--quiet")
	testkit.Git(t, dir, "config", "core.trustctime", "false")
	then := time.Now().Add(-10 * time.Second).Truncate(time.Second)
	file := filepath.Join(dir, "cache.go")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, then, then); err != nil {
			t.Fatal(err)
		}
	}
	write("var size = -1\n")
	testkit.Git(t, dir, "add", "cache.go")
	testkit.Git(t, dir, "commit", "--quiet", "-m", "disable the cache")
	if err := os.Chtimes(filepath.Join(dir, ".git", "index"), then, then); err != nil {
		t.Fatal(err)
	}
	write("var size = 20\n")

	g, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := g.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if tree == testkit.Git(t, dir, "rev-parse", "HEAD^{tree}") {
		t.Fatal("the snapshot is the commit's tree: the edit made in the commit's second is missing")
	}
	if got := testkit.Git(t, dir, "show", tree+":cache.go"); got != "var size = 20" {
		t.Errorf("the snapshot holds %q, want the edit", got)
	}
}

// The files a review's evidence globs may match are those git does not
// track at the head, ignored ones included: a result file the PR commits
// is not among them, even taken out of the index.
func TestNotTrackedLeavesOutTheHeadsFiles(t *testing.T) {
	dir := t.TempDir()
	testkit.Git(t, dir, "init", "--quiet")
	for name, body := range map[string]string{"committed.sarif": "{}", ".gitignore": "out/\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Git(t, dir, "add", ".")
	testkit.Git(t, dir, "commit", "--quiet", "-m", "results")
	head := testkit.Git(t, dir, "rev-parse", "HEAD")
	testkit.Git(t, dir, "rm", "--quiet", "--cached", "committed.sarif")
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"out/lint.sarif", "ci.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.NotTracked(t.Context(), head)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "ci.txt,out/lint.sarif" {
		t.Errorf("NotTracked = %v, want the CI's two files, not the committed one", got)
	}
}
