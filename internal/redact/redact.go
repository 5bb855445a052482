// Package redact removes secrets and raw diffs from text that leaves the
// machine: prompts sent to models (DESIGN.md §5) and comments posted on pull
// requests (DESIGN.md §7, seeds/004 §4b).
package redact

import (
	"regexp"
	"strings"
	"sync"
)

// secretLine matches a line holding secret-like content: AWS access key IDs,
// private key blocks, Slack tokens, GitHub tokens and PATs, OpenAI-style keys.
// It is compiled on first use, not at start-up.
var secretLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|-----BEGIN [A-Z ]*PRIVATE KEY-----|xox[abposr]-[0-9A-Za-z-]+|gh[pousr]_[0-9A-Za-z]{20,}|github_pat_[0-9A-Za-z_]{20,}|sk-[0-9A-Za-z_-]{16,}`)
})

// Redacted replaces a line that held a secret.
const Redacted = "[REDACTED]"

// DiffRedacted replaces a `diff --git` block in a comment.
const DiffRedacted = "[DIFF REDACTED]"

// Secrets replaces every line that holds a secret-like token with [REDACTED].
// Lines inside a private key block are redacted up to its END line. Other
// text is returned unchanged.
func Secrets(s string) string {
	if !secretLine().MatchString(s) {
		return s
	}
	lines := strings.Split(s, "\n")
	inKey := false
	for i, l := range lines {
		switch {
		case inKey:
			if strings.Contains(l, "-----END ") && strings.Contains(l, "PRIVATE KEY-----") {
				inKey = false
			}
			lines[i] = Redacted
		case secretLine().MatchString(l):
			if strings.Contains(l, "PRIVATE KEY-----") && !strings.Contains(l, "-----END ") {
				inKey = true
			}
			lines[i] = Redacted
		}
	}
	return strings.Join(lines, "\n")
}

// ForComment prepares text for a PR comment: secrets redacted and every
// `diff --git` block replaced by one [DIFF REDACTED] line. A block runs from
// its `diff --git` line while the lines look like a unified diff.
func ForComment(s string) string {
	s = Secrets(s)
	if !strings.Contains(s, "diff --git") {
		return s
	}
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	inDiff := false
	for _, l := range lines {
		if strings.Contains(l, "diff --git") {
			if !inDiff {
				out = append(out, DiffRedacted)
			}
			inDiff = true
			continue
		}
		if inDiff && isDiffLine(l) {
			continue
		}
		inDiff = false
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

var diffPrefixes = []string{"+", "-", " ", "@@", "\\", "index ", "new file mode", "deleted file mode",
	"old mode", "new mode", "similarity index", "dissimilarity index", "rename from", "rename to",
	"copy from", "copy to", "Binary files"}

func isDiffLine(l string) bool {
	for _, p := range diffPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}
