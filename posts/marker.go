package posts

import (
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// Marker is carried by every comment gh-ocdx posts (docs/architecture.md,
// The footprint); the comments analysis ignores comments holding it.
const Marker = "<!-- pr-review-loop-marker -->"

// RunTag marks a comment as round n's post of kind (review, review-pr, fix,
// final) in run id, so that no retried or resumed run posts it twice
// (docs/architecture.md, Posting).
func RunTag(runID string, n int, kind string) string {
	return fmt.Sprintf("<!-- ocdx:run=%s round=%d kind=%s -->", runID, n, kind)
}

// CarriesMarkup reports whether s, a model's text gh-ocdx would post as
// written (a suggestion's replacement), holds a hidden comment, a gh-ocdx
// tag or the marker, text that could pass for gh-ocdx's own, or a line
// that starts with /ocdx, which could pass for a command.
func CarriesMarkup(s string) bool {
	return strings.Contains(s, "<!--") || strings.Contains(s, "ocdx:") || strings.Contains(s, Marker) || text.HasCommandLine(s)
}

// Visible is a post of gh-ocdx's without its hidden lines (the marker and
// tags): what a person reads of it.
func Visible(body string) string {
	var keep []string
	for _, l := range strings.Split(body, "\n") {
		if !strings.HasPrefix(l, "<!--") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
