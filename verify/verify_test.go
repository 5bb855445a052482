package verify

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestVerifyStopsAtTheFirstFailure(t *testing.T) {
	dir := t.TempDir()
	var stream bytes.Buffer
	results, ok := Run(context.Background(), dir, []string{`sh -c "echo linted"`, `sh -c "echo boom >&2; exit 3"`, "true"}, &stream)
	if ok || len(results) != 2 {
		t.Fatalf("ok=%v results=%+v", ok, results)
	}
	if !results[0].OK || results[1].OK || results[1].ExitCode != 3 || !strings.Contains(results[1].Tail, "boom") {
		t.Errorf("results: %+v", results)
	}
	if !strings.Contains(stream.String(), "linted") || !strings.Contains(stream.String(), "$ sh -c \"echo boom") {
		t.Errorf("output must be streamed: %q", stream.String())
	}
}

func TestVerifyRunsNoShell(t *testing.T) {
	dir := t.TempDir()
	results, ok := Run(context.Background(), dir, []string{"echo $HOME; touch pwned"}, &bytes.Buffer{})
	if !ok || strings.TrimSpace(results[0].Tail) != "$HOME; touch pwned" {
		t.Errorf("arguments must reach the program verbatim: %+v", results)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("a shell ran the command")
	}
}

func TestVerifyKeepsATail(t *testing.T) {
	results, _ := Run(context.Background(), t.TempDir(), []string{`sh -c "yes line | head -c 100000; exit 1"`}, &bytes.Buffer{})
	if n := len(results[0].Tail); n > TailBytes+100 || !strings.HasPrefix(results[0].Tail, "[… earlier output cut]") {
		t.Errorf("tail of %d bytes: %q…", n, results[0].Tail[:40])
	}
}

func TestVerifyCancelStopsChildren(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// The child of the shell would outlive a plain kill of the shell.
	results, ok := Run(ctx, dir, []string{`sh -c "sleep 30 & echo $! > child.pid; wait"`}, &bytes.Buffer{})
	if ok || results[0].OK || !strings.Contains(results[0].Tail, "stopped") {
		t.Fatalf("a cancelled command fails: %+v", results)
	}
	pid, _ := os.ReadFile(filepath.Join(dir, "child.pid"))
	if p := strings.TrimSpace(string(pid)); p != "" {
		if _, err := os.Stat("/proc/" + p); err == nil {
			time.Sleep(200 * time.Millisecond)
			if st, err := os.ReadFile("/proc/" + p + "/stat"); err == nil && !strings.Contains(string(st), ") Z") {
				t.Errorf("child %s still running after cancel", p)
			}
		}
	}
}

func TestMissing(t *testing.T) {
	got := Missing([]string{"git status", "no-such-tool-xyz lint", `unbalanced "quote`})
	if len(got) != 2 || got[0] != "no-such-tool-xyz lint" {
		t.Errorf("got %v", got)
	}
}

func TestVerifyGetsNoCredentials(t *testing.T) {
	t.Setenv("GH_TOKEN", "ghp_secret")
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("OCDX_VISIBLE", "yes")
	results, ok := Run(context.Background(), t.TempDir(), []string{"env"}, &bytes.Buffer{})
	if !ok || strings.Contains(results[0].Tail, "secret") || !strings.Contains(results[0].Tail, "OCDX_VISIBLE=yes") {
		t.Errorf("verify environment:\n%s", results[0].Tail)
	}
}

// config validate says why each verify command cannot start here: a
// program not on PATH, a path that is not there or not executable.
func TestProblems(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "lint.sh"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Problems(root, []string{"git status", "no-such-tool-xyz lint", "./lint.sh", "./missing.sh"}, "config.json")
	if len(got) != 3 || !strings.Contains(got[0], "no-such-tool-xyz is not on PATH") ||
		!strings.Contains(got[1], "is not an executable file") || !strings.Contains(got[2], "there is no "+filepath.Join(root, "missing.sh")) {
		t.Errorf("problems %q", got)
	}
}
