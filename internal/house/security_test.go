package house

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// SECURITY.md names the test behind each claim as `package: TestName`:
// every one it names exists, in the package it names.
func TestSecurityMDNamesTestsThatExist(t *testing.T) {
	doc, err := os.ReadFile("SECURITY.md")
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile("`([a-z][a-z0-9/]*): ((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]+)`").FindAllStringSubmatch(string(doc), -1)
	if len(refs) < 50 {
		t.Fatalf("SECURITY.md names %d tests; the pattern must have missed them", len(refs))
	}
	sources := map[string]string{}
	for _, r := range refs {
		pkg, name := r[1], r[2]
		src, ok := sources[pkg]
		if !ok {
			files, _ := filepath.Glob(filepath.Join(filepath.FromSlash(pkg), "*_test.go"))
			var b strings.Builder
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				b.Write(data)
			}
			src = b.String()
			sources[pkg] = src
		}
		if !strings.Contains(src, "func "+name+"(") {
			t.Errorf("SECURITY.md names %s: %s, which package %s does not have", pkg, name, pkg)
		}
	}
}
