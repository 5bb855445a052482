package cmdutil

import (
	"io"

	"github.com/ocdx/gh-ocdx/internal/markdown"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// PrintMarkdown writes md to stdout as gh pr view does: rendered for the
// terminal when stdout is one, as it is when piped (scripts and files get
// the Markdown itself). The source is made inert first, so the renderer's
// escape sequences are the only ones that reach the terminal.
func PrintMarkdown(d *Deps, md string) error {
	if !d.IO.StdoutTTY || d.IO.RawOut == nil {
		_, err := io.WriteString(d.IO.Out, md)
		return err
	}
	out := markdown.Render(text.Inert(md), d.IO.TerminalWidth(), markdown.ThemeFor(d.Getenv, colourOn(d.Getenv)))
	_, err := io.WriteString(d.IO.RawOut, out)
	return err
}
