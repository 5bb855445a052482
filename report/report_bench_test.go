package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/tokens"

	"github.com/ocdx/gh-ocdx/roles"
)

// BenchmarkRenderReview renders the review report of a round with five
// reviewers, the comments analyzer and 100 findings.
//
//	go test -run '^$' -bench RenderReview ./report
func BenchmarkRenderReview(b *testing.B) {
	rr := &RoundResult{N: 2, HeadOID: "0123456789abcdef0123456789abcdef01234567", Consensus: "request_changes",
		Counts: finding.Counts{P1: 25, P2: 50, P3: 25}, Usage: map[string]tokens.Usage{}}
	for i := range 5 {
		role := fmt.Sprint("reviewer-", i+1)
		rr.Roles = append(rr.Roles, roles.Status{Role: role, Model: "openai/gpt-4.1", OK: true, Conclusion: "request_changes",
			Findings: 20, Report: strings.Repeat("A reviewer's full  ", 200)})
		rr.Usage[role] = tokens.Usage{Input: 10000, Output: 1000, Calls: 3}
	}
	rr.Roles = append(rr.Roles, roles.Status{Role: roles.AnalyzerName, Model: "openai/gpt-4.1-mini", OK: true})
	prio := []string{"P1", "P2", "P2", "P3"}
	for i := range 100 {
		line := i + 1
		f := finding.Finding{Priority: prio[i%4], Category: "quality", File: fmt.Sprintf("pkg/file%02d.go", i%20), Line: &line,
			Title: fmt.Sprint("Finding number ", i), Description: strings.Repeat("Why it matters. ", 20), Suggestion: "Do better."}
		f.ID = finding.ID(f.Category, f.File, f.Line, f.Title)
		rr.Findings = append(rr.Findings, f)
	}
	var n int
	for b.Loop() {
		n = len(RenderReview("20261122T044110-a6020c", 3, rr))
	}
	b.ReportMetric(float64(n), "bytes")
}
