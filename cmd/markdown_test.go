package cmd

import (
	"testing"

	"github.com/ocdx/gh-ocdx/internal/markdown"
)

// The renderer's theme comes from the environment: colour off wins over
// everything, GLAMOUR_STYLE picks light, dark or none, COLORFGBG says
// light or dark, dark when nothing says.
func TestRenderThemeFromTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want markdown.Theme
	}{
		{map[string]string{}, markdown.Dark},
		{map[string]string{"COLORFGBG": "0;15"}, markdown.Light},
		{map[string]string{"COLORFGBG": "15;0"}, markdown.Dark},
		{map[string]string{"NO_COLOR": "1"}, markdown.Plain},
		{map[string]string{"CLICOLOR": "0"}, markdown.Plain},
		{map[string]string{"GLAMOUR_STYLE": "light"}, markdown.Light},
		{map[string]string{"GLAMOUR_STYLE": "dark", "COLORFGBG": "0;15"}, markdown.Dark},
		{map[string]string{"GLAMOUR_STYLE": "notty"}, markdown.Plain},
		{map[string]string{"GLAMOUR_STYLE": "dracula", "COLORFGBG": "0;15"}, markdown.Light},
		{map[string]string{"GLAMOUR_STYLE": "light", "NO_COLOR": "1"}, markdown.Plain},
	} {
		if got := renderTheme(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: theme %d, want %d", c.env, got, c.want)
		}
	}
}
