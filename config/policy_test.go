package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		glob, file string
		want       bool
	}{
		{"*.lock", "Cargo.lock", true},
		{"*.lock", "deep/dir/x.lock", true}, // no slash: the base name, at any depth
		{"*.lock", "lock/x.go", false},
		{"go.sum", "tools/go.sum", true},
		{"vendor/**", "vendor/a/b/c.go", true},
		{"vendor/**", "vendor", true}, // ** matches no directory too
		{"vendor/**", "src/vendor/a.go", false},
		{"docs/**/*.md", "docs/a.md", true},
		{"docs/**/*.md", "docs/x/y/a.md", true},
		{"docs/**/*.md", "docs/x/a.go", false},
		{"api/*.go", "api/h.go", true},
		{"api/*.go", "api/v1/h.go", false}, // * stays within a directory
		{"**/gen/*.go", "a/b/gen/x.go", true},
		{"*_generated.*", "pkg/model_generated.ts", true},
	} {
		if got := Match(tt.glob, tt.file); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.glob, tt.file, got, tt.want)
		}
	}
}

func TestPolicyIgnore(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"ignore": ["testdata/**"]}`), ".ocdx.json", false)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]bool{"go.sum": true, "web/package-lock.json": true, "testdata/x.json": true, "main.go": false} {
		if got := p.Ignored(file); got != want {
			t.Errorf("Ignored(%q) = %v, want %v", file, got, want)
		}
	}
	off, err := ParsePolicy([]byte(`{"ignoreDefaults": false, "ignore": ["*.snap"]}`), ".ocdx.json", false)
	if err != nil {
		t.Fatal(err)
	}
	if off.Ignored("go.sum") || !off.Ignored("ui/a.snap") {
		t.Errorf("ignoreDefaults false: %v", off.Ignore)
	}
	// No .ocdx.json at all: the defaults.
	var none *Policy
	if !none.Ignored("yarn.lock") || none.Ignored("main.go") {
		t.Error("the nil policy does not ignore the defaults")
	}
}

func TestReadPolicyFromAWorkTree(t *testing.T) {
	root := t.TempDir()
	p, path, err := ReadPolicy(root)
	if err != nil || path != "" || !slices.Equal(p.Ignore, DefaultIgnore) || p.Guide != "" {
		t.Fatalf("empty tree: %+v %q %v", p, path, err)
	}
	write(t, filepath.Join(root, ".ocdx.json"), `{"instructions": "Wrap errors.", "paths": [{"glob": "api/**", "instructions": "Check auth."}]}`)
	if err := os.WriteFile(filepath.Join(root, "REVIEW.md"), []byte("# House rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, path, err = ReadPolicy(root)
	if err != nil || path == "" {
		t.Fatal(path, err)
	}
	if p.Instructions != "Wrap errors." || p.Guide != "# House rules\n" || p.Verify != nil ||
		!slices.Equal(p.Paths, []PathRule{{Glob: "api/**", Instructions: "Check auth."}}) {
		t.Errorf("policy %+v", p)
	}
	// No verify in the file: the configuration's stay.
	c := &Config{Verify: DefaultVerify()}
	if err := c.ApplyRepo(root); err != nil || c.VerifyFrom != "" || !slices.Equal(c.Verify, DefaultVerify()) || c.Policy.Instructions != "Wrap errors." {
		t.Errorf("ApplyRepo: %v, verify %v from %q", err, c.Verify, c.VerifyFrom)
	}
}
