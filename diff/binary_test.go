package diff

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Only a line that starts with "Binary files " says a file is binary, read
// a byte at a time or whole; the text passes through unchanged.
func TestWatchBinary(t *testing.T) {
	for in, want := range map[string]bool{
		"diff --git a/x b/x\nBinary files a/x and b/x differ\n": true,
		"diff --git a/x b/x\n+Binary files are fine\n":          false,
		"+x\n Binary files a/x and b/x differ\n":                false,
		"Binary files a/x and b/x differ":                       true,
	} {
		for _, r := range []func(string) io.Reader{
			func(s string) io.Reader { return strings.NewReader(s) },
			func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		} {
			w := WatchBinary(r(in))
			got, err := io.ReadAll(w)
			if err != nil || string(got) != in || w.Seen() != want {
				t.Errorf("%q: seen %t, read %q, %v", in, w.Seen(), got, err)
			}
		}
	}
}
