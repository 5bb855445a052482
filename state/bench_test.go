package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/verify"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkShow1000PRs writes 1,000 PRs × 3 rounds of realistic size, then
// measures what `state show` reads (all PRs, and one PR in full) and the
// file's size, before and after the runs converge and decay.
//
//	go test -run '^$' -bench Show1000PRs ./state/
func BenchmarkShow1000PRs(b *testing.B) {
	s := New(filepath.Join(b.TempDir(), "state.db"), &Options{HeartbeatEvery: time.Hour})
	findings := []finding.Finding{{ID: "QUAL-1b2c3d4e", Priority: "P1", Title: "a finding", Description: strings.Repeat("a finding with its description and suggestion. ", 100)}} // ~5KB
	full := strings.Repeat("a reviewer's full Markdown report. ", 60)                                                                                                             // ~2KB
	runs := make([]*Active, 1000)
	start := time.Now()
	for i := range runs {
		a, err := s.Begin(NewKey("github.com", "owner", fmt.Sprint("repo", i%10), i+1), "review-loop")
		if err != nil {
			b.Fatal(err)
		}
		for n := 1; n <= 3; n++ {
			if _, err := a.StartRound(n, "0123456789abcdef0123456789abcdef01234567"); err != nil {
				b.Fatal(err)
			}
			err := a.Complete(n, PhaseReviewed, func(r *Round) {
				r.Findings = findings
				r.FindingIDs = []string{"SEC-0a1b2c3d", "QUAL-1b2c3d4e", "TEST-2c3d4e5f"}
				r.Counts = finding.Counts{P0: 0, P1: 1, P2: 2, P3: 3}
				r.Consensus = "request_changes"
				for k := range 3 {
					r.Reports = append(r.Reports, Report{Role: fmt.Sprint("reviewer-", k+1), Summary: "1 P1, 2 P2", Full: full})
				}
				r.Verification = []verify.Result{{Command: "dx lint", OK: true, Tail: full[:1000]}}
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		runs[i] = a
	}
	b.Logf("wrote 1000 PRs × 3 rounds in %s", time.Since(start).Round(time.Millisecond))

	measure := func(stage string) {
		size := fileSize(b, s.Path())
		b.Run("list-all/"+stage, func(b *testing.B) {
			for b.Loop() {
				if list, err := s.List(); err != nil || len(list) != 1000 {
					b.Fatal(len(list), err)
				}
			}
			b.ReportMetric(float64(size), "file-bytes")
		})
		b.Run("one-pr/"+stage, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.PR(NewKey("github.com", "owner", "repo0", 501)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size), "file-bytes")
		})
	}
	measure("before-decay")
	for _, a := range runs {
		if err := a.End(OutcomeConverged, ""); err != nil {
			b.Fatal(err)
		}
	}
	measure("after-decay")

	// What the data would take in a freshly compacted file: the floor the
	// automatic compaction (over half the file free) brings it towards.
	src, err := bolt.Open(s.Path(), 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	compacted := filepath.Join(b.TempDir(), "compact.db")
	dst, err := bolt.Open(compacted, 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := bolt.Compact(dst, src, 8<<20); err != nil {
		b.Fatal(err)
	}
	_ = dst.Close()
	b.Logf("file %d bytes after decay; %d bytes when compacted", fileSize(b, s.Path()), fileSize(b, compacted))
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}
