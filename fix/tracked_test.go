package fix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/repofs"
)

// TestFixAgentReadsTrackedAndWrittenFilesOnly: an ignored .env, an
// untracked file and a tracked symlink to the .env are not listed, searched
// or read; what the agent wrote is.
func TestFixAgentReadsTrackedAndWrittenFilesOnly(t *testing.T) {
	_, fx, _ := toolkit(t)
	testkit.WriteFiles(t, fx.Clone, map[string]string{".gitignore": ".env\n", "secret-dir/.keep": ""})
	os.Symlink(".env", filepath.Join(fx.Clone, "env-link"))
	testkit.Git(t, fx.Clone, "add", ".gitignore", "env-link")
	testkit.Git(t, fx.Clone, "commit", "--quiet", "-m", "ignore .env")
	testkit.WriteFiles(t, fx.Clone, map[string]string{".env": "LOCAL_ONLY_VALUE=cafe-7d1e-local-only\n", "notes.txt": "LOCAL_ONLY_VALUE in notes\n"})
	tools, _ := toolkitAt(t, fx) // the tracked files are listed at start

	for _, p := range []string{".env", "notes.txt", "secret-dir/.keep", "env-link"} {
		out, err := call(t, tools, "read_file", map[string]any{"path": p})
		if err == nil || strings.Contains(out+err.Error(), "cafe-7d1e") || !strings.Contains(err.Error(), "not tracked") {
			t.Errorf("read %s: %q, %v; want a refusal saying it is not tracked", p, out, err)
		}
	}
	if out, _ := call(t, tools, "list_files", map[string]any{}); strings.Contains(out, ".env\n") || strings.Contains(out, "notes.txt") || !strings.Contains(out, "a.txt") {
		t.Errorf("list_files = %q; want tracked files only", out)
	}
	if out, err := call(t, tools, "search", map[string]any{"pattern": "LOCAL_ONLY"}); err != nil || out != "no matches" {
		t.Errorf("search = %q, %v; want no matches", out, err)
	}
	if _, err := call(t, tools, "write_file", map[string]any{"path": "new/file.go", "content": "package x // LOCAL_ONLY mine\n"}); err != nil {
		t.Fatal(err)
	}
	if out, err := call(t, tools, "read_file", map[string]any{"path": "./new/file.go"}); err != nil || !strings.Contains(out, "mine") {
		t.Errorf("a file the agent wrote must be readable: %q, %v", out, err)
	}
	if out, err := call(t, tools, "search", map[string]any{"pattern": "LOCAL_ONLY"}); err != nil || !strings.HasPrefix(out, "new/file.go:1:") || strings.Contains(out, "notes") {
		t.Errorf("search = %q, %v; want the written file only", out, err)
	}
}

// TestResumedFixReadsWhatItWroteBefore: a file the interrupted fix wrote
// (recorded in its WIP) stays readable after --continue, untracked as it is.
func TestResumedFixReadsWhatItWroteBefore(t *testing.T) {
	_, fx, _ := toolkit(t)
	testkit.WriteFiles(t, fx.Clone, map[string]string{"draft.go": "package draft\n", "other.go": "package other\n"})
	repo, err := git.Open(context.Background(), fx.Clone)
	if err != nil {
		t.Fatal(err)
	}
	files, err := repofs.Open(fx.Clone)
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	tr, err := newTrackedFiles(context.Background(), repo, files, []string{"./draft.go"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tr.ReadFile("draft.go", 0, 0); err != nil || got != "package draft\n" {
		t.Errorf("draft.go = %q, %v", got, err)
	}
	if _, err := tr.ReadFile("other.go", 0, 0); err == nil {
		t.Error("other.go is neither tracked nor written: it must be refused")
	}
	if list, _, _ := tr.List(""); strings.Join(list, " ") != "a.txt b.txt draft.go" {
		t.Errorf("list = %q", list)
	}
}

// TestFixAgentCannotChangeOrProbeUntrackedFiles: edit_file on an ignored
// .env would tell the agent whether a guess of its content is right
// ("not found" or "edited"), and write_file would overwrite the user's file;
// both are refused, through a tracked symlink too, and the file is intact.
func TestFixAgentCannotChangeOrProbeUntrackedFiles(t *testing.T) {
	_, fx, _ := toolkit(t)
	testkit.WriteFiles(t, fx.Clone, map[string]string{".gitignore": ".env\n"})
	os.Symlink(".env", filepath.Join(fx.Clone, "env-link"))
	testkit.Git(t, fx.Clone, "add", ".gitignore", "env-link")
	testkit.Git(t, fx.Clone, "commit", "--quiet", "-m", "ignore .env")
	const env = "LOCAL_ONLY_VALUE=cafe-7d1e-local-only\n"
	testkit.WriteFiles(t, fx.Clone, map[string]string{".env": env})
	tools, _ := toolkitAt(t, fx)

	for _, tc := range []struct{ tool, path string }{{"edit_file", ".env"}, {"write_file", ".env"}, {"edit_file", "env-link"}, {"write_file", "env-link"}} {
		args := map[string]any{"path": tc.path, "old_string": "LOCAL_ONLY_VALUE=cafe", "new_string": "X", "content": "X"}
		if out, err := call(t, tools, tc.tool, args); err == nil || !strings.Contains(err.Error(), "not tracked") {
			t.Errorf("%s %s: %q, %v; want a refusal", tc.tool, tc.path, out, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(fx.Clone, ".env")); string(b) != env {
		t.Errorf(".env changed to %q", b)
	}
	// A tracked file and a new one stay the agent's to change.
	if _, err := call(t, tools, "edit_file", map[string]any{"path": "a.txt", "old_string": "a", "new_string": "b"}); err != nil {
		t.Error(err)
	}
	if _, err := call(t, tools, "write_file", map[string]any{"path": "brand/new.txt", "content": "x"}); err != nil {
		t.Error(err)
	}
}
