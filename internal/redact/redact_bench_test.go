package redact

import (
	"strings"
	"testing"
)

// BenchmarkForComment sanitises a 5-reviewer report of about 64 KB holding
// secrets and quoted diffs, as every posted comment is.
//
//	go test -run '^$' -bench ForComment ./internal/redact
func BenchmarkForComment(b *testing.B) {
	part := "### QUAL-0a1b2c3d: the cache is not bounded\n\nThe map grows with every key; seen with AKIAABCDEFGHIJKLMNOP in the logs:\n" +
		"```\ndiff --git a/cache.go b/cache.go\n--- a/cache.go\n+++ b/cache.go\n@@ -1,3 +1,4 @@\n+var Size = 10\n```\n" +
		strings.Repeat("A plain sentence of the reviewer's report, with nothing to hide. ", 12) + "\n\n"
	s := strings.Repeat(part, 64<<10/len(part))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if out := ForComment(s); strings.Contains(out, "AKIA") {
			b.Fatal("secret left")
		}
	}
}
