package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// Coloured JSON on a terminal carries no sequence from the data: escapes
// stay escaped, C1 controls and bidi overrides become visible.
func TestColouredJSONIsInert(t *testing.T) {
	d, _, _ := testDeps()
	var raw bytes.Buffer
	d.IO.rawOut, d.IO.stdoutTTY = &raw, true
	v := map[string]string{"title": "fine\x1b[8mHIDDEN\x1b[0m \u009b31m \u202eRTL <!-- marker -->"}
	if err := (&exporter{}).write(d, v); err != nil {
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

// Fields are selected on an object and on each object of a list.
func TestSelectFields(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"b":{"c":2},"d":3}`:     `{"a":1,"b":{"c":2}}`,
		`[{"a":1,"d":3},{"b":2,"d":4}]`: `[{"a":1},{"b":2}]`,
	} {
		got, err := selectFields([]byte(in), []string{"a", "b"})
		if err != nil || string(got) != want {
			t.Errorf("selectFields(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
}
