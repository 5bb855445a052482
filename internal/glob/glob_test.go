package glob

import "testing"

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
