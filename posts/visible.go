package posts

import "strings"

// Visible is a post without its hidden lines (marker, tags), as a person
// reads it.
func Visible(body string) string {
	var keep []string
	for _, l := range strings.Split(body, "\n") {
		if !strings.HasPrefix(l, "<!--") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
