package markdown

import (
	"strconv"
	"strings"
)

// ThemeFor is the theme the environment asks for: Plain without colour
// (colour: the environment does not turn it off), else light or dark as
// COLORFGBG says. GLAMOUR_STYLE, which gh users set for gh's renderer, may
// pick light, dark or no colours (notty, ascii) when colour is on; other
// glamour styles are not known here.
func ThemeFor(getenv func(string) string, colour bool) Theme {
	if !colour {
		return Plain
	}
	switch getenv("GLAMOUR_STYLE") {
	case "light":
		return Light
	case "dark":
		return Dark
	case "notty", "ascii":
		return Plain
	}
	return background(getenv)
}

// background is Light or Dark as COLORFGBG says, Dark when it says
// nothing. The terminal is not asked for its background: its answer
// arrives on stdin, where it would mix with what the person types at the
// next prompt.
func background(getenv func(string) string) Theme {
	fgbg := getenv("COLORFGBG")
	if i := strings.LastIndexByte(fgbg, ';'); i >= 0 {
		if bg, err := strconv.Atoi(fgbg[i+1:]); err == nil && (bg == 7 || bg >= 9 && bg <= 15) {
			return Light
		}
	}
	return Dark
}
