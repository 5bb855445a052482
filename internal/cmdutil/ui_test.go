package cmdutil

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// The person's lines on a terminal: the mark coloured (unless colour is
// off), the text from outside inert even on the raw stream the colour
// needs, and no colour at all off a terminal.
func TestMarkedLines(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tty      bool
		noColor  string
		want     string
		wantWarn string
	}{
		{"terminal", true, "", "\x1b[32m✓\x1b[0m Posted review: evil^[]0;title^G\n", "\x1b[33m!\x1b[0m check this\n"},
		{"NO_COLOR", true, "1", "✓ Posted review: evil^[]0;title^G\n", "! check this\n"},
		{"not a terminal", false, "", "✓ Posted review: evil^[]0;title^G\n", "! check this\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var raw bytes.Buffer
			ios := &IOStreams{ErrOut: text.Writer{W: &raw}, StderrTTY: tc.tty}
			if tc.tty {
				ios.RawErr = &raw
			}
			d := &Deps{IO: ios, Getenv: func(k string) string { return map[string]string{"NO_COLOR": tc.noColor}[k] }}
			d.Success("Posted review: %s", "evil\x1b]0;title\x07")
			if got := raw.String(); got != tc.want {
				t.Errorf("success: %q, want %q", got, tc.want)
			}
			raw.Reset()
			d.Warn("check this")
			if got := raw.String(); got != tc.wantWarn {
				t.Errorf("warn: %q, want %q", got, tc.wantWarn)
			}
		})
	}
}

// A domain package's lines (loop, fix) get their marks coloured too, only
// at the start of a line.
func TestProgressOutColoursLeadingMarks(t *testing.T) {
	var raw bytes.Buffer
	d := &Deps{IO: &IOStreams{ErrOut: text.Writer{W: &raw}, RawErr: &raw, StderrTTY: true}, Getenv: func(string) string { return "" }}
	w := d.ProgressOut()
	for _, s := range []string{"X reviewer-1 (m): failed\n", "✗ make test (2s)\n", "partial ", "X not at a line's start\n", "plain\n"} {
		w.Write([]byte(s))
	}
	want := "\x1b[31mX\x1b[0m reviewer-1 (m): failed\n\x1b[31m✗\x1b[0m make test (2s)\npartial X not at a line's start\nplain\n"
	if got := raw.String(); got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	if strings.Contains(raw.String(), "\x1b[33m") {
		t.Error("no warning was written")
	}
}

func TestDebugEnabledReadsGHDebugAsGh(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "no": false, "1": true, "true": true, "api": true} {
		if got := debugEnabled(func(string) string { return v }); got != want {
			t.Errorf("GH_DEBUG=%q: %t, want %t", v, got, want)
		}
	}
}
