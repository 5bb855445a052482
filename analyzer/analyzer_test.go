package analyzer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/config"
)

// An analyzer's standard output is read in its format, under its name; its
// exit status 1 (it found something) is no failure; one that cannot start
// or outlives its limit is a problem line and no results; the report of a
// tree is kept, so the same tree is not analysed twice.
func TestRunnerReadsEachAnalyzer(t *testing.T) {
	dir := t.TempDir()
	counter := filepath.Join(dir, "runs")
	var progress bytes.Buffer
	r := &Runner{Dir: dir, Progress: &progress, Analyzers: []config.Analyzer{
		{Name: "shlint", Argv: []string{"sh", "-c", `echo run >> runs; echo "a.sh:3:1: warning: quote this [SC2086]"; echo "` + dir + `/b.sh:1: note: fine"; exit 1`}, Timeout: time.Minute},
		{Name: "missing", Argv: []string{"no-such-analyzer-xyz"}, Timeout: time.Minute},
		{Name: "slow", Argv: []string{"sleep", "30"}, Timeout: 100 * time.Millisecond},
	}}
	rep := r.Run(t.Context(), "tree1")
	if len(rep.Sets) != 1 || len(rep.Sets[0].Results) != 2 {
		t.Fatalf("report %+v", rep)
	}
	first := rep.Sets[0].Results[0]
	if first.Tool != "shlint" || first.File != "a.sh" || first.Line != 3 || first.Rule != "SC2086" || rep.Sets[0].Results[1].File != "b.sh" {
		t.Errorf("results %+v", rep.Sets[0].Results)
	}
	if len(rep.Problems) != 2 || !strings.Contains(rep.Problems[0], "analyzer missing could not run") || !strings.Contains(rep.Problems[1], "analyzer slow was stopped after 100ms, its time limit") {
		t.Errorf("problems %q", rep.Problems)
	}
	r.Run(t.Context(), "tree1")
	r.Run(t.Context(), "")
	if runs, _ := os.ReadFile(counter); strings.Count(string(runs), "run") != 2 {
		t.Errorf("ran %d times, want 2 (the tree's report kept, no tree: run again)", strings.Count(string(runs), "run"))
	}
	if !strings.Contains(progress.String(), "analyzer shlint: 2 results (exit 1") {
		t.Errorf("progress:\n%s", progress.String())
	}
}
