package change

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/repofs"
)

func tool(t *testing.T, tools []llm.Tool, name string) llm.Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return llm.Tool{}
}

func call(t *testing.T, tl llm.Tool, args string) (string, error) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(tl.Schema, &m); err != nil || m["type"] != "object" {
		t.Fatalf("%s: schema is not a JSON object schema: %s", tl.Name, tl.Schema)
	}
	return tl.Run(context.Background(), json.RawMessage(args))
}

func TestRepoTools(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte("package a\n// TODO one\nvar x = 1\n"), 0o644)
	repo, err := repofs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	tools := RepoTools(repo)

	if out, err := call(t, tool(t, tools, "read_file"), `{"path":"src/a.go","start_line":2,"end_line":2}`); err != nil || out != "// TODO one\n" {
		t.Errorf("read_file: %q %v", out, err)
	}
	if _, err := call(t, tool(t, tools, "read_file"), `{"path":"../etc/passwd"}`); err == nil {
		t.Error("read_file must refuse a path outside the repository")
	}
	if out, err := call(t, tool(t, tools, "list_files"), `{}`); err != nil || out != "src/a.go" {
		t.Errorf("list_files: %q %v", out, err)
	}
	if out, err := call(t, tool(t, tools, "search"), `{"pattern":"TODO"}`); err != nil || out != "src/a.go:2: // TODO one\n" {
		t.Errorf("search: %q %v", out, err)
	}
	if out, _ := call(t, tool(t, tools, "search"), `{"pattern":"absent"}`); out != "no matches" {
		t.Errorf("search with no match: %q", out)
	}
}

type fakePR struct{ pages int }

func (f *fakePR) FilesPage(_ context.Context, _ github.Repo, _ int, page int) ([]github.FilePatch, error) {
	f.pages++
	var out []github.FilePatch
	n := github.FilesPerPage
	if page == 2 {
		n = 5
	}
	for i := range n {
		out = append(out, github.FilePatch{Filename: fmt.Sprintf("p%d/f%d.go", page, i), Status: "modified", Patch: "@@ -1 +1 @@\n-a\n+b"})
	}
	return out, nil
}

func (f *fakePR) Issue(_ context.Context, _ github.Repo, n int) (*github.Issue, error) {
	return &github.Issue{Number: n, Title: "Bug", State: "open", Body: strings.Repeat("x", 20000)}, nil
}

func TestPRTools(t *testing.T) {
	gh := &fakePR{}
	tools := PRTools(gh, github.Repo{Owner: "o", Name: "r"}, 1)
	out, err := call(t, tool(t, tools, "pr_diff"), `{"path":"p2/f3.go"}`)
	if err != nil || !strings.Contains(out, "diff --git a/p2/f3.go b/p2/f3.go") || !strings.Contains(out, "+b") {
		t.Errorf("pr_diff: %q %v", out, err)
	}
	if _, err := call(t, tool(t, tools, "pr_diff"), `{"path":"p1/f0.go"}`); err != nil || gh.pages != 2 {
		t.Errorf("pages must be fetched once and reused: %d fetches, %v", gh.pages, err)
	}
	if _, err := call(t, tool(t, tools, "pr_diff"), `{"path":"nope.go"}`); err == nil || gh.pages != 2 {
		t.Errorf("a file the PR does not change: %v after %d fetches", err, gh.pages)
	}
	out, err = call(t, tool(t, tools, "issue_view"), `{"number":7}`)
	if err != nil || !strings.HasPrefix(out, "#7: Bug (open)") || len(out) > 9000 || !strings.HasSuffix(out, "[body cut at 8KB]") {
		t.Errorf("issue_view: %d bytes, %v", len(out), err)
	}
}
