package loop

import (
	"fmt"
	"io"
	"strings"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/redact"
)

// SecretScanner names gh-ocdx as the source of the findings it computes.
const SecretScanner = "gh-ocdx secret scan"

// secretChunk bounds the added lines of one file scanned at a time: the
// scan holds this much of a diff, never the whole.
const secretChunk = 256 << 10

// SecretFindings returns one P0 security finding for each secret that the
// PR's diff adds (each secret gh-ocdx hides from the models in an added
// line), at its file and line in the PR's version. It reads the whole diff
// from r, streamed, however much of it the models were shown
// (docs/architecture.md, The secret scan). Models may miss or approve a
// hard-coded token; these findings cannot be, so a PR that adds one never
// converges. The ID is computed as for any finding, so the same secret in
// the next round is the same finding.
func SecretFindings(r io.Reader, now string) ([]finding.Finding, error) {
	var out []finding.Finding
	seen := map[string]bool{}
	var text strings.Builder
	var nums []int
	file := ""
	scan := func() {
		defer func() { text.Reset(); nums = nums[:0] }()
		if file == "" || len(nums) == 0 {
			return
		}
		for _, h := range redact.Find(text.String()) {
			if h.Continued || h.Line >= len(nums) {
				continue
			}
			n := nums[h.Line]
			f := finding.Finding{Priority: "P0", Category: "security", File: file, Line: &n,
				Title:       "Hard-coded " + h.Kind + " added",
				Description: fmt.Sprintf("Line %d of %s adds a %s (shown to the models as %s). A secret in the code is readable by everyone who can read the repository and stays in its history.", n, file, h.Kind, redact.Marker(h.Kind)),
				Suggestion:  "Move the value out of the code to configuration or an environment variable that the code reads, and revoke the exposed secret.",
				Source:      &finding.Source{Type: "agent", Name: SecretScanner, Timestamp: now}}
			f.ID = f.ComputeID()
			if !seen[f.ID] {
				seen[f.ID] = true
				out = append(out, f)
			}
		}
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
			if text.Len() > secretChunk {
				scan()
			}
			// The "+" keeps each line as the models see it in the diff.
			text.WriteString("+" + l.Text + "\n")
			nums = append(nums, l.New)
			return nil
		},
	})
	scan()
	if err != nil {
		return out, fmt.Errorf("reading the diff for the secret scan: %w", err)
	}
	return out, nil
}
