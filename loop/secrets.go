package loop

import (
	"fmt"
	"io"
	"strings"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
)

// SecretScanner names gh-ocdx as the source of the findings it computes.
const SecretScanner = "gh-ocdx secret scan"

// secretChunk and secretBytes bound the added lines of one file scanned at
// a time: the scan holds this much of a diff, never the whole.
const (
	secretChunk = 4096
	secretBytes = 256 << 10
)

// maxKeyLines is longer than any private key block (a 4096-bit RSA key in
// PEM is about 50 lines): a header whose block runs on past it has no END,
// and the lines after it are scanned as code, not hidden as the key.
const maxKeyLines = 200

// scanLines reports each secret of lines (numbered nums) to add.
func scanLines(lines []string, nums []int, add func(n int, kind string)) {
	if len(lines) == 0 {
		return
	}
	header, run := -1, 0
	for _, h := range redact.Find(strings.Join(lines, "\n")) {
		if !h.Continued {
			add(nums[h.Line], h.Kind)
			header, run = h.Line, 0
			continue
		}
		if run++; run > maxKeyLines && header >= 0 {
			// An unterminated key: what follows its header is scanned anew.
			scanLines(lines[header+1:], nums[header+1:], add)
			return
		}
	}
}

// SecretScan is what the secret scan read of a diff: the findings, and how
// many added lines of each file (by its path in the PR's version) it read,
// so that a file GitHub sent no patch for is known to be unscanned.
type SecretScan struct {
	Findings []finding.Finding
	Added    map[string]int
}

// Unscanned are the files of the PR that add lines the scan did not read:
// GitHub sent them without a textual patch (too large, after a 406).
func (s SecretScan) Unscanned(files []github.ChangedFile) []string {
	var out []string
	for _, f := range files {
		if f.Additions > 0 && s.Added[f.Path] == 0 {
			out = append(out, f.Path)
		}
	}
	return out
}

// SecretFindings returns one P0 security finding for each secret that the
// PR's diff adds (each secret gh-ocdx hides from the models in an added
// line), at its file and line in the PR's version. It reads the whole diff
// from r, streamed, however much of it the models were shown
// (docs/architecture.md, The secret scan). Models may miss or approve a
// hard-coded token; these findings cannot be, so a PR that adds one never
// converges. The ID is computed as for any finding, so the same secret in
// the next round is the same finding.
func SecretFindings(r io.Reader, now string) ([]finding.Finding, error) {
	s, err := ScanSecrets(r, now, nil)
	return s.Findings, err
}

// ScanSecrets is SecretFindings with what it read, on top of an earlier
// scan (nil for none) whose findings it does not repeat.
func ScanSecrets(r io.Reader, now string, earlier *SecretScan) (SecretScan, error) {
	res := SecretScan{Added: map[string]int{}}
	seen := map[string]bool{}
	if earlier != nil {
		res.Findings = earlier.Findings
		for _, f := range earlier.Findings {
			seen[f.ID] = true
		}
		for p, n := range earlier.Added {
			res.Added[p] = n
		}
	}
	var lines []string
	var nums []int
	size, file := 0, ""
	add := func(n int, kind string) {
		f := finding.Finding{Priority: "P0", Category: "security", File: file, Line: &n,
			Title:       "Hard-coded " + kind + " added",
			Description: fmt.Sprintf("Line %d of %s adds a %s (shown to the models as %s). A secret in the code is readable by everyone who can read the repository and stays in its history.", n, file, kind, redact.Marker(kind)),
			Suggestion:  "Move the value out of the code to configuration or an environment variable that the code reads, and revoke the exposed secret.",
			Source:      &finding.Source{Type: "agent", Name: SecretScanner, Timestamp: now}}
		f.ID = f.ComputeID()
		if !seen[f.ID] {
			seen[f.ID] = true
			res.Findings = append(res.Findings, f)
		}
	}
	scan := func() {
		if file != "" {
			scanLines(lines, nums, add)
		}
		lines, nums, size = lines[:0], nums[:0], 0
	}
	err := diff.Walk(r, diff.Visitor{
		File: func(f *diff.File) error {
			scan()
			file = f.NewPath // "" for a deleted file: nothing added
			return nil
		},
		Line: func(_ *diff.File, l diff.Line) error {
			if l.Kind != diff.Add {
				return nil
			}
			if len(lines) >= secretChunk || size > secretBytes {
				scan()
			}
			size += len(l.Text)
			res.Added[file]++
			// The "+" keeps each line as the models see it in the diff.
			lines = append(lines, "+"+l.Text)
			nums = append(nums, l.New)
			return nil
		},
	})
	scan()
	if err != nil {
		return res, fmt.Errorf("reading the diff for the secret scan: %w", err)
	}
	return res, nil
}
