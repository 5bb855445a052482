package loop

import (
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
)

// SecretScanner names gh-ocdx as the source of the findings it computes.
const SecretScanner = "gh-ocdx secret scan"

// SecretFindings returns one P0 security finding for each secret that the
// PR's diff adds (each secret gh-ocdx hides from the models in an added
// line), at its file and line in the PR's version. Models may miss or
// approve a hard-coded token; these findings cannot be, so a PR that adds
// one never converges. The ID is computed as for any finding, so the same
// secret in the next round is the same finding.
func SecretFindings(diff, now string) []finding.Finding {
	hits := redact.Find(diff)
	if len(hits) == 0 {
		return nil
	}
	byLine := map[int][]string{}
	for _, h := range hits {
		if !h.Continued {
			byLine[h.Line] = append(byLine[h.Line], h.Kind)
		}
	}
	var out []finding.Finding
	seen := map[string]bool{}
	file, newLine, inHunk := "", 0, false
	for i, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			file, inHunk = "", false
			continue
		case !inHunk && strings.HasPrefix(l, "+++ "):
			file = github.DiffPath(strings.TrimPrefix(l, "+++ "))
			continue
		case strings.HasPrefix(l, "@@"):
			newLine, inHunk = github.HunkStart(l, "+"), true
			continue
		case !inHunk:
			continue
		}
		switch {
		case strings.HasPrefix(l, "+"):
		case strings.HasPrefix(l, " "), l == "":
			newLine++
			continue
		default: // removed lines and "\ No newline at end of file"
			continue
		}
		n := newLine
		newLine++
		for _, kind := range byLine[i] {
			if file == "" || n <= 0 {
				continue
			}
			f := finding.Finding{Priority: "P0", Category: "security", File: file, Line: &n,
				Title:       "Hard-coded " + kind + " added",
				Description: fmt.Sprintf("Line %d of %s adds a %s (shown to the models as %s). A secret in the code is readable by everyone who can read the repository and stays in its history.", n, file, kind, redact.Marker(kind)),
				Suggestion:  "Move the value out of the code to configuration or an environment variable that the code reads, and revoke the exposed secret.",
				Source:      &finding.Source{Type: "agent", Name: SecretScanner, Timestamp: now}}
			f.ID = f.ComputeID()
			if !seen[f.ID] {
				seen[f.ID] = true
				out = append(out, f)
			}
		}
	}
	return out
}
