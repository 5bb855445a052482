package evidence

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

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
				msg, rule := trailingRule(e.Text)
				c.add(Result{File: e.Filename, Line: e.Lnum, Column: e.Col, Level: efLevel(e.Type), Rule: rule, Message: msg})
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

// trailingRule splits the rule that many tools end a line with from the
// message: staticcheck's "… (S1003)", shellcheck's "… [SC2045]",
// eslint's "… [Error/no-unused-vars]". A rule is one word of letters,
// digits and "_./:-" holding a digit or a slash, so that a message's own
// closing "(deprecated)" stays the message's.
func trailingRule(msg string) (string, string) {
	m := strings.TrimRight(msg, " ")
	if len(m) < 4 {
		return msg, ""
	}
	closer := m[len(m)-1]
	opener := byte('(')
	if closer == ']' {
		opener = '['
	} else if closer != ')' {
		return msg, ""
	}
	i := strings.LastIndexByte(m, opener)
	if i <= 0 || m[i-1] != ' ' {
		return msg, ""
	}
	rule := m[i+1 : len(m)-1]
	if rule == "" || len(rule) > 64 || !strings.ContainsAny(rule, "0123456789/") {
		return msg, ""
	}
	for _, r := range rule {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:-", r)) {
			return msg, ""
		}
	}
	return strings.TrimRight(m[:i], " "), rule
}
