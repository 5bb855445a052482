package consensus

import (
	"fmt"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
)

// BenchmarkIdentify gives 200 findings of a round their earlier IDs among
// 150 findings of the review before (a full ledger's located ones), half
// of them raised again at a moved line, reworded.
//
//	go test -run '^$' -bench Identify ./consensus
func BenchmarkIdentify(b *testing.B) {
	var earlier, fs []finding.Finding
	for i := range 150 {
		earlier = append(earlier, fnd("P2", "quality", fmt.Sprintf("pkg/file%02d.go", i%20), 10*i+1, fmt.Sprint("Unchecked error from call number ", i)))
	}
	for i := range 200 {
		title := fmt.Sprint("New problem in the code, number ", i)
		if i%2 == 0 && i < 150 {
			title = fmt.Sprint("The unchecked error from call number ", i)
		}
		fs = append(fs, fnd("P2", "quality", fmt.Sprintf("pkg/file%02d.go", i%20), 10*i+3, title))
	}
	var n int
	for b.Loop() {
		_, at := Identify(fs, earlier, func(finding.Finding) bool { return true })
		n = len(at)
	}
	b.ReportMetric(float64(n), "raised-again")
}
