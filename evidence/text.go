package evidence

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"

	"github.com/reviewdog/errorformat"
)

// readCheckstyle reads checkstyle XML element by element: <file name>
// holding <error line column severity message source>.
func readCheckstyle(r io.Reader, c *collector) error {
	d := xml.NewDecoder(r)
	file := ""
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		se, ok := t.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "file":
			file = attr(se, "name")
		case "error":
			line, _ := strconv.Atoi(attr(se, "line"))
			col, _ := strconv.Atoi(attr(se, "column"))
			c.add(Result{File: file, Line: line, Column: col, Level: attr(se, "severity"), Rule: attr(se, "source"), Message: attr(se, "message")})
		}
	}
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// efms are the errorformat lines read (Vim's notation): a file, a line, a
// column when given, a level word when given ("file:1:2: error: …",
// gcc's), and the message.
var efms = []string{
	`%f:%l:%c: %trror: %m`,
	`%f:%l:%c: %tarning: %m`,
	`%f:%l:%c: %tote: %m`,
	`%f:%l:%c: %m`,
	`%f:%l: %trror: %m`,
	`%f:%l: %tarning: %m`,
	`%f:%l: %m`,
	`%f(%l,%c): %m`,
}

// readErrorformat reads errorformat lines; a line of no known shape is
// skipped. The patterns are compiled per file, not when the program
// starts, and the lines go to the scanner a batch at a time: it keeps
// every entry it read, and every pattern is of one line.
func readErrorformat(r io.Reader, c *collector) error {
	ef, err := errorformat.NewErrorformat(efms)
	if err != nil {
		return err
	}
	var batch bytes.Buffer
	n := 0
	flush := func() {
		s := ef.NewScanner(&batch)
		for s.Scan() {
			if e := s.Entry(); e.Valid && e.Filename != "" {
				c.add(Result{File: e.Filename, Line: e.Lnum, Column: e.Col, Level: efLevel(e.Type), Message: e.Text})
			}
		}
		batch.Reset()
		n = 0
	}
	err = lines(r, maxLine, func(_ int, line []byte) error {
		batch.Write(line)
		batch.WriteByte('\n')
		if n++; n >= 1024 {
			flush()
		}
		return nil
	})
	flush()
	return err
}

// efLevel is the level of an errorformat entry's type (%t).
func efLevel(t rune) string {
	switch t {
	case 'e', 'E':
		return LevelError
	case 'w', 'W':
		return LevelWarning
	case 'n', 'N', 'i', 'I':
		return LevelNote
	}
	return ""
}
