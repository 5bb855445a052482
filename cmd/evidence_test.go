package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// The base branch's evidence globs read the result files a CI step wrote
// (not tracked at the head), never one the PR committed, and never a link
// out of the checkout; --evidence reads what it names, a directory's
// files included.
func TestReadEvidenceFromGlobsAndFlags(t *testing.T) {
	dir := t.TempDir()
	line := func(file string) string { return file + ":1:1: warning: from " + file + "\n" }
	testkit.Git(t, dir, "init", "--quiet")
	testkit.WriteFiles(t, dir, map[string]string{"out/committed.txt": line("a.go")})
	testkit.Git(t, dir, "add", ".")
	testkit.Git(t, dir, "commit", "--quiet", "-m", "the PR's own results")
	head := testkit.Git(t, dir, "rev-parse", "HEAD")
	testkit.WriteFiles(t, dir, map[string]string{"out/ci.txt": line("b.go")})
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "out", "link.txt")); err != nil {
		t.Fatal(err)
	}
	flagDir := t.TempDir()
	testkit.WriteFiles(t, flagDir, map[string]string{"lint.txt": line("c.go"), "vet.txt": line("d.go")})
	repo, err := git.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	d, _, errOut := cmdtest.Deps()
	specs, _ := parseEvidence([]string{flagDir})
	sets, err := readEvidence(t.Context(), d, specs, &config.Policy{Evidence: []string{"out/*.txt"}}, repo, head)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, s := range sets {
		for _, r := range s.Results {
			files = append(files, r.Tool+"@"+r.File)
		}
	}
	if got := strings.Join(files, ","); got != "lint@c.go,vet@d.go,ci@b.go" {
		t.Errorf("read %s, want the flag's two files and the CI's one", got)
	}
	if !strings.Contains(errOut.String(), "link.txt") || !strings.Contains(errOut.String(), "not a regular file") {
		t.Errorf("the link was not said to be skipped: %s", errOut)
	}
	if _, err := readEvidence(t.Context(), d, []evidenceSpec{{Path: filepath.Join(dir, "missing.sarif")}}, nil, repo, head); err == nil {
		t.Error("a missing --evidence file is no error")
	}
}
