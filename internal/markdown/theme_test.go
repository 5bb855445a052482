package markdown

import (
	"testing"
)

// The renderer's theme comes from the environment: colour off wins over
// everything, GLAMOUR_STYLE picks light, dark or none, COLORFGBG says
// light or dark, dark when nothing says.
func TestRenderThemeFromTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want Theme
	}{
		{map[string]string{}, Dark},
		{map[string]string{"COLORFGBG": "0;15"}, Light},
		{map[string]string{"COLORFGBG": "15;0"}, Dark},
		{map[string]string{"NO_COLOR": "1"}, Plain},
		{map[string]string{"CLICOLOR": "0"}, Plain},
		{map[string]string{"GLAMOUR_STYLE": "light"}, Light},
		{map[string]string{"GLAMOUR_STYLE": "dark", "COLORFGBG": "0;15"}, Dark},
		{map[string]string{"GLAMOUR_STYLE": "notty"}, Plain},
		{map[string]string{"GLAMOUR_STYLE": "dracula", "COLORFGBG": "0;15"}, Light},
		{map[string]string{"GLAMOUR_STYLE": "light", "NO_COLOR": "1"}, Plain},
	} {
		colour := c.env["NO_COLOR"] == "" && c.env["CLICOLOR"] != "0" // as cmd reads it
		if got := ThemeFor(func(k string) string { return c.env[k] }, colour); got != c.want {
			t.Errorf("%v: theme %d, want %d", c.env, got, c.want)
		}
	}
}
