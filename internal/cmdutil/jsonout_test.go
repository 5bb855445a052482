package cmdutil

import (
	"bytes"
	"strings"
	"testing"
)

// Coloured JSON on a terminal carries no sequence from the data: escapes
// stay escaped, C1 controls and bidi overrides become visible.
func TestColouredJSONIsInert(t *testing.T) {
	d := &Deps{IO: &IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
	var raw bytes.Buffer
	d.IO.RawOut, d.IO.StdoutTTY = &raw, true
	v := map[string]string{"title": "fine\x1b[8mHIDDEN\x1b[0m \u009b31m \u202eRTL <!-- marker -->"}
	if err := (&Exporter{}).Write(d, v); err != nil {
		t.Fatal(err)
	}
	out := raw.String()
	if !strings.Contains(out, "\x1b[1;34m") {
		t.Fatalf("not coloured: %q", out)
	}
	for _, live := range []string{"\x1b[8m", "\u009b", "\u202e"} {
		if strings.Contains(out, live) {
			t.Errorf("the data's %q reached the terminal: %q", live, out)
		}
	}
	for _, shown := range []string{`\u001b[8mHIDDEN`, "<U+009B>31m", "<U+202E>RTL", "<!-- marker -->"} {
		if !strings.Contains(out, shown) {
			t.Errorf("%q is not shown: %q", shown, out)
		}
	}
}
