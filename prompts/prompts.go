// Package prompts holds the Markdown templates sent to models, embedded in the
// binary so that they are reviewable as files and always shipped.
package prompts

import (
	"crypto/rand"
	"embed"
	"encoding/hex"
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

// RenderStable executes the template name, which writes {{.Break}} where a
// part that stays the same from request to request ends, and returns the
// text without those marks and where they were. The mark is new at each
// call, so no text of a PR in the data can forge one.
func RenderStable(name string, data map[string]any) (string, []int, error) {
	var nonce [12]byte
	_, _ = rand.Read(nonce[:]) // never fails (crypto/rand)
	mark := "\x00" + hex.EncodeToString(nonce[:]) + "\x00"
	data["Break"] = mark
	s, err := Render(name, data)
	if err != nil {
		return "", nil, err
	}
	parts := strings.Split(s, mark)
	var breaks []int
	at := 0
	for _, p := range parts[:len(parts)-1] {
		at += len(p)
		breaks = append(breaks, at)
	}
	return strings.Join(parts, ""), breaks, nil
}
