package evidence

import (
	"bytes"
	"fmt"
	"testing"
)

// sarifLog is a SARIF log of n results over 100 rules, each with a help
// text as real tools write them.
func sarifLog(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"bench","rules":[`)
	for i := range 100 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"R%d","help":{"text":"%s"},"properties":{"security-severity":"5.0"}}`, i, bytes.Repeat([]byte("explain "), 100))
	}
	b.WriteString(`]}},"results":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"ruleId":"R%d","level":"warning","message":{"text":"result %d: something is wrong with this expression"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"pkg/file%d.go","uriBaseId":"%%SRCROOT%%"},"region":{"startLine":%d,"startColumn":3,"endLine":%d,"endColumn":20}}}]}`, i%100, i, i%50, i%900+1, i%900+1)
	}
	b.WriteString(`]}]}`)
	return b.Bytes()
}

// BenchmarkReadSARIF10000 reads a 10,000-result SARIF log (about 3 MB):
// time and allocations per read (BENCHMARKS.md).
func BenchmarkReadSARIF10000(b *testing.B) {
	log := sarifLog(10000)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Read(bytes.NewReader(log), "", "", "")
		if err != nil || len(s.Results) != 10000 {
			b.Fatalf("%d results, %v", len(s.Results), err)
		}
	}
}
