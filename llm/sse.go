package llm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Both APIs stream an answer as server-sent events: "event:" and "data:"
// lines, an empty line ending each event. Streaming lets a slow model run
// as long as tokens keep coming (the inactivity deadline, not a per-call
// one, cuts a stalled answer) and lets the caller see progress.

// errStreamCut marks a stream that ended before its end event: the whole
// call is retried, a partial answer is never used.
var errStreamCut = errors.New("the answer stream ended before its end")

// maxEventLine bounds one line of the stream; no delta is near it.
const maxEventLine = 4 << 20

// readSSE calls each for every event of r until r ends; each returning
// an error stops it. A stream that ends without error is io.EOF, not an
// error: the caller decides whether its end event came.
func readSSE(r io.Reader, each func(name string, data []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var name string
	var data []byte
	var line []byte
	for {
		part, isPrefix, err := br.ReadLine()
		if err == io.EOF {
			return nil // a last event without its empty line is incomplete: dropped
		}
		if err != nil {
			return err
		}
		line = append(line, part...)
		if isPrefix {
			if len(line) > maxEventLine {
				return fmt.Errorf("%w: an event line over %d MiB", ErrBadResponse, maxEventLine>>20)
			}
			continue
		}
		switch {
		case len(line) == 0:
			if data != nil {
				if err := each(name, bytes.TrimSuffix(data, []byte("\n"))); err != nil {
					return err
				}
			}
			name, data = "", nil
		case line[0] == ':': // a comment, such as a keep-alive
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				name = string(value)
			case "data":
				data = append(append(data, value...), '\n')
			}
		}
		line = line[:0]
	}
}
