package diff

import (
	"bytes"
	"io"
)

// Binary passes a diff through and notes a "Binary files … differ" line
// in it: a diff a checkout's .gitattributes made show a text file as
// binary hides that file's lines from whoever reads it.
type Binary struct {
	r    io.Reader
	at   bool // the next byte starts a line
	seen bool
	line []byte // the start of the current line, up to len(binaryLine)
}

var binaryLine = []byte("Binary files ")

// WatchBinary is r, watched for a binary file's line.
func WatchBinary(r io.Reader) *Binary { return &Binary{r: r, at: true} }

// Seen reports whether a line read so far says a file is binary.
func (w *Binary) Seen() bool { return w.seen }

func (w *Binary) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	for _, c := range p[:n] {
		if w.at {
			w.line, w.at = w.line[:0], false
		}
		if len(w.line) < len(binaryLine) {
			w.line = append(w.line, c)
			if bytes.Equal(w.line, binaryLine) {
				w.seen = true
			}
		}
		w.at = c == '\n'
	}
	return n, err
}
