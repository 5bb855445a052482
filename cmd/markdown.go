package cmd

import (
	"io"
	"strconv"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/markdown"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// printMarkdown writes md to stdout as gh pr view does: rendered for the
// terminal when stdout is one, as it is when piped (scripts and files get
// the Markdown itself). The source is made inert first, so the renderer's
// escape sequences are the only ones that reach the terminal.
func printMarkdown(d *Deps, md string) error {
	if !d.IO.stdoutTTY || d.IO.rawOut == nil {
		_, err := io.WriteString(d.IO.Out, md)
		return err
	}
	out := markdown.Render(text.Inert(md), d.IO.TerminalWidth(), renderTheme(d.Getenv))
	_, err := io.WriteString(d.IO.rawOut, out)
	return err
}

// renderTheme is markdownTheme for the renderer. GLAMOUR_STYLE, which gh
// users set for gh's renderer, may pick light, dark or no colours
// (notty, ascii) when colour is on; other glamour styles are not known here.
func renderTheme(getenv func(string) string) markdown.Theme {
	theme := markdownTheme(getenv)
	if theme != "none" {
		switch getenv("GLAMOUR_STYLE") {
		case "light", "dark":
			theme = getenv("GLAMOUR_STYLE")
		case "notty", "ascii":
			theme = "none"
		}
	}
	switch theme {
	case "light":
		return markdown.Light
	case "dark":
		return markdown.Dark
	}
	return markdown.Plain
}

// markdownTheme is "none" when colour is off (NO_COLOR, CLICOLOR=0), else
// light or dark as COLORFGBG says, dark when it says nothing. The terminal
// is not asked for its background: its answer arrives on stdin, where it
// would mix with what the person types at the next prompt.
func markdownTheme(getenv func(string) string) string {
	if !colourOn(getenv) {
		return "none"
	}
	fgbg := getenv("COLORFGBG")
	if i := strings.LastIndexByte(fgbg, ';'); i >= 0 {
		if bg, err := strconv.Atoi(fgbg[i+1:]); err == nil && (bg == 7 || bg >= 9 && bg <= 15) {
			return "light"
		}
	}
	return "dark"
}
