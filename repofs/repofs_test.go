package repofs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func setup(t *testing.T) (*Repo, string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	for p, c := range map[string]string{
		"main.go":        "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
		"pkg/a/a.go":     "package a\n\n// TODO: fix\nvar A = 1\n",
		".git/config":    "[remote \"origin\"]\n\turl = https://token@example.com/r\n",
		".git/HEAD":      "ref: refs/heads/main\n",
		"../outside.txt": "secret outside\n",
	} {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(c), 0o644)
	}
	os.Symlink(filepath.Join(base, "outside.txt"), filepath.Join(dir, "link-out"))
	os.Symlink("../outside.txt", filepath.Join(dir, "rel-out"))
	os.Symlink(".git", filepath.Join(dir, "gitdir"))
	os.Symlink("pkg/a/a.go", filepath.Join(dir, "link-in"))
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, base
}

func TestPathsThatLeaveTheRepositoryAreRefused(t *testing.T) {
	r, base := setup(t)
	for _, p := range []string{"/etc/passwd", "../outside.txt", "pkg/../../outside.txt", "link-out", "rel-out",
		".git/config", ".git", "gitdir/config", "./.git/HEAD", "pkg/a/../../.git/config"} {
		if _, err := r.ReadFile(p, 0, 0); !errors.Is(err, ErrOutside) {
			t.Errorf("read %q: want ErrOutside, got %v", p, err)
		}
		if err := r.WriteFile(p, "pwned"); !errors.Is(err, ErrOutside) {
			t.Errorf("write %q: want ErrOutside, got %v", p, err)
		}
	}
	if err := r.WriteFile("gitdir/hooks/pre-commit", "#!/bin/sh\n"); !errors.Is(err, ErrOutside) {
		t.Errorf("a write through a symlink into .git must be refused, got %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(base, "outside.txt")); string(b) != "secret outside\n" {
		t.Errorf("the file outside was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(base, "repo", ".git", "hooks")); err == nil {
		t.Error("a hooks directory was created in .git")
	}
}

func TestReadListSearchInside(t *testing.T) {
	r, _ := setup(t)
	if got, err := r.ReadFile("main.go", 3, 4); err != nil || got != "func main() {\n\tprintln(\"hi\")\n" {
		t.Errorf("line range: %q %v", got, err)
	}
	if got, err := r.ReadFile("link-in", 0, 0); err != nil || !strings.Contains(got, "var A") {
		t.Errorf("a symlink inside the repository may be read: %q %v", got, err)
	}
	files, more, err := r.List("")
	if err != nil || more {
		t.Fatal(err)
	}
	joined := strings.Join(files, " ")
	if strings.Contains(joined, ".git/") || !strings.Contains(joined, "pkg/a/a.go") {
		t.Errorf("list: %v", files)
	}
	m, _, err := r.Search(`TODO|token`, ".")
	if err != nil || len(m) != 1 || m[0].Path != "pkg/a/a.go" || m[0].Line != 3 {
		t.Errorf("search must find the TODO and nothing from .git or outside: %+v %v", m, err)
	}
	if _, _, err := r.Search(`(`, "."); err == nil || !strings.Contains(err.Error(), "RE2") {
		t.Errorf("a bad pattern should explain itself: %v", err)
	}
}

func TestWriteAndEdit(t *testing.T) {
	r, _ := setup(t)
	if err := r.WriteFile("new/dir/x.txt", "one two two\n"); err != nil {
		t.Fatal(err)
	}
	if err := r.Edit("new/dir/x.txt", "two", "2"); err == nil || !strings.Contains(err.Error(), "occurs 2 times") {
		t.Errorf("ambiguous edit: %v", err)
	}
	if err := r.Edit("new/dir/x.txt", "one", "1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.ReadFile("new/dir/x.txt", 0, 0); got != "1 two two\n" {
		t.Errorf("after edit: %q", got)
	}
	if err := r.Edit("new/dir/x.txt", "absent", "x"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing text: %v", err)
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "/abs", "a/../../b", ".git/config", "a/./b", "", "..", `..\x`, "a\x00b", ".gitignore", ".github/x",
		"a/.GIT/b", "a/.git./b", "vendor/lib/.git"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := Clean(p)
		if err != nil {
			return
		}
		if strings.HasPrefix(c, "/") || c == ".." || strings.HasPrefix(c, "../") || strings.Contains(c, "/../") {
			t.Errorf("Clean(%q) = %q escapes", p, c)
		}
		for _, part := range strings.Split(c, "/") {
			if strings.EqualFold(strings.TrimRight(part, ". "), ".git") {
				t.Errorf("Clean(%q) = %q enters a .git", p, c)
			}
		}
		if filepath.IsAbs(filepath.FromSlash(c)) {
			t.Errorf("Clean(%q) = %q is absolute", p, c)
		}
	})
}

// A .git at any depth is a repository git would enter and whose
// configuration it would run; case-insensitive file systems (macOS,
// Windows) take other spellings for the same name.
func TestNestedGitIsRefusedAtAnyDepth(t *testing.T) {
	r, base := setup(t)
	os.MkdirAll(filepath.Join(base, "repo", "vendor", "lib", ".git"), 0o755)
	os.Symlink("vendor/lib/.git", filepath.Join(base, "repo", "nested"))
	os.Symlink("vendor/lib", filepath.Join(base, "repo", "lib"))
	for _, p := range []string{"vendor/lib/.git/config", "vendor/lib/.git", "a/.GIT/HEAD", "a/.Git/config", "a/.git./config",
		"a/.git /config", "a/git~1/config", "a/.g\u200cit/config", "a/.git\ufeff/config", "a/.git::$INDEX_ALLOCATION/config",
		"nested/config", "lib/.git/config", "lib/.git"} {
		if err := r.WriteFile(p, "[core]\n\tfsmonitor = touch pwned\n"); !errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), ".git") {
			t.Errorf("write %q: want a refusal naming .git, got %v", p, err)
		}
		if err := r.Edit(p, "a", "b"); !errors.Is(err, ErrOutside) {
			t.Errorf("edit %q: want ErrOutside, got %v", p, err)
		}
	}
	for _, p := range []string{"a/.gitignore", "a/.github/x", "a/git/x", "a/.gitattributes.md", "a/x.git/y"} {
		if err := r.WriteFile(p, "x\n"); err != nil {
			t.Errorf("write %q: %v", p, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(base, "repo", "vendor", "lib", ".git")); len(entries) != 0 {
		t.Errorf("written into the nested .git: %v", entries)
	}
}

func TestPolicyFilesAreNotWritable(t *testing.T) {
	r, base := setup(t)
	dir := filepath.Join(base, "repo")
	for p, c := range map[string]string{".ocdx.json": "{}\n", "REVIEW.md": "review\n", ".github/workflows/ci.yml": "on: push\n", ".gitmodules": ""} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644)
	}
	os.Symlink(".github/workflows", filepath.Join(dir, "wf"))
	os.Symlink(".ocdx.json", filepath.Join(dir, "cfg"))
	os.Symlink(".github", filepath.Join(dir, "gh"))
	for _, p := range []string{".ocdx.json", ".OCDX.json", "sub/.ocdx.json", "REVIEW.md", "review.md", "docs/REVIEW.md", ".github/workflows/ci.yml",
		".github/workflows/new.yml", ".GitHub/Workflows/x.yml", ".github/workflows", "wf/ci.yml", "cfg", "gh/workflows/x.yml",
		".gitmodules", ".GitModules", "vendor/.gitmodules", "gitmod~1",
		".github/actions/setup/action.yml", ".github/CODEOWNERS", "docs/codeowners", "CODEOWNERS", ".gitattributes", "sub/.GitAttributes"} {
		for what, err := range map[string]error{"write": r.WriteFile(p, "x"), "edit": r.Edit(p, "{}", `{"verify":["sh -c id"]}`)} {
			if !errors.Is(err, ErrProtected) {
				t.Errorf("%s %q: want ErrProtected, got %v", what, p, err)
			}
		}
	}
	if err := r.WriteFile(".github/dependabot.yml", "version: 2\n"); err != nil {
		t.Errorf("other files of .github stay writable: %v", err)
	}
	if got, err := r.ReadFile(".ocdx.json", 0, 0); err != nil || got != "{}\n" {
		t.Errorf("policy files stay readable, and unchanged: %q %v", got, err)
	}
	if err := Writable(".ocdx.json"); err == nil || !strings.Contains(err.Error(), "reject the finding") {
		t.Errorf("the refusal must say what to do: %v", err)
	}
}
