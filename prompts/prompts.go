// Package prompts holds the Markdown templates sent to models, embedded in the
// binary so that they are reviewable as files and always shipped.
package prompts

import (
	"embed"
	"fmt"
	"strings"
	"sync"
	"text/template"
)

//go:embed *.md
var files embed.FS

// templates are parsed on first use, not at start-up: most commands
// (--version, config, state) render none.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Option("missingkey=error").ParseFS(files, "*.md"))
})

// Render executes the template name (a file name such as "review_pr.md").
func Render(name string, data any) (string, error) {
	var b strings.Builder
	if err := templates().ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("rendering prompt %s: %w", name, err)
	}
	return b.String(), nil
}
