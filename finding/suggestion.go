package finding

import (
	"strings"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// SuggestionBlock renders replacement as a GitHub suggestion, which the
// PR's author can commit from the comment; the text cannot close its fence.
func SuggestionBlock(replacement string) string {
	return text.Fenced("suggestion", strings.TrimSuffix(replacement, "\n"))
}
