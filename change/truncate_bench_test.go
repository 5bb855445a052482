package change

import (
	"strings"
	"testing"
)

// BenchmarkTruncateDiff cuts a 20 MB diff to DiffLimit, as every round does
// for a PR whose diff GitHub answered in full.
//
//	go test -run '^$' -bench TruncateDiff ./review
func BenchmarkTruncateDiff(b *testing.B) {
	diff := []byte(strings.Repeat("+\tx := compute(\"a line of a large generated change\", 42) // padding\n", 20<<20/70))
	b.SetBytes(int64(len(diff)))
	for b.Loop() {
		if s, cut := TruncateDiff(diff, true); !cut || len(s) > DiffLimit+len(DiffTruncatedNotice) {
			b.Fatal(len(s), cut)
		}
	}
}
