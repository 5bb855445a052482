// Package evidence reads what the repository's own tools found (linters,
// scanners, CI steps) from their result files into one shape, Result:
// SARIF 2.1.0, reviewdog's rdjson and rdjsonl, checkstyle XML and
// errorformat lines (docs/architecture.md, Evidence). Tool output is
// hostile text like any PR text: every message is masked for secrets,
// made inert and cut, and a file is read within fixed bounds.
package evidence

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// Format names a result file's format.
type Format string

// The formats read; "" detects the format from the file's first bytes.
const (
	SARIF       Format = "sarif"
	RDJSON      Format = "rdjson"
	RDJSONL     Format = "rdjsonl"
	Checkstyle  Format = "checkstyle"
	Errorformat Format = "errorformat"
)

// Formats are the formats a file may be named as.
var Formats = []Format{SARIF, RDJSON, RDJSONL, Checkstyle, Errorformat}

// The bounds of one file: a file past MaxFileBytes is read as far as that,
// results past MaxResults are counted, not kept, and each text is cut.
const (
	MaxFileBytes = 64 << 20
	MaxResults   = 20000
	maxMessage   = 1024
	maxName      = 256
	maxJSONLine  = 1 << 20  // an rdjsonl line longer is cut (and fails to parse)
	maxLine      = 32 << 10 // a line longer is cut (errorformat's scanner stops at 64 KiB)
)

// The levels a result is normalised to.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNote    = "note"
)

// Result is one thing a tool found.
type Result struct {
	Tool    string `json:"tool"`
	File    string `json:"file"` // slash-separated, from the repository's root
	Line    int    `json:"line,omitempty"`
	EndLine int    `json:"endLine,omitempty"`
	Column  int    `json:"column,omitempty"`
	Level   string `json:"level"` // error, warning or note
	// SecuritySeverity is SARIF's security-severity (0–10), 0 when the
	// tool gave none.
	SecuritySeverity float64 `json:"securitySeverity,omitempty"`
	Rule             string  `json:"rule,omitempty"`
	Message          string  `json:"message"`
}

// Set is what one file gave.
type Set struct {
	Source  string // the file, as named
	Format  Format
	Results []Result
	// Dropped counts the results past MaxResults, or without a file
	// inside the repository, that were not kept.
	Dropped int
	// Cut: the file was longer than MaxFileBytes and read as far as that.
	Cut bool
}

// ParseFormat is the format named s ("" for detection).
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return "", nil
	}
	f := Format(strings.ToLower(s))
	if !slices.Contains(Formats, f) {
		return "", fmt.Errorf("unknown evidence format %q: use one of %s", s, FormatNames())
	}
	return f, nil
}

// FormatNames lists the formats for a message: "sarif, rdjson, …".
func FormatNames() string {
	var s []string
	for _, f := range Formats {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

// Detect names the format of a file from its first bytes: XML is
// checkstyle; a JSON object with "runs" SARIF, with "diagnostics" rdjson;
// a first line that is a JSON object on its own rdjsonl; anything else
// errorformat lines.
func Detect(head []byte) Format {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case bytes.HasPrefix(t, []byte("<")):
		return Checkstyle
	case bytes.HasPrefix(t, []byte("{")):
		if line, _, ok := bytes.Cut(t, []byte("\n")); ok && jsonObjectLine(line) {
			return RDJSONL
		}
		if bytes.Contains(t, []byte(`"diagnostics"`)) && !bytes.Contains(t, []byte(`"runs"`)) {
			return RDJSON
		}
		return SARIF
	}
	return Errorformat
}

// Read reads one result file from r in format f ("" detects it). tool
// names the tool of the formats that do not say it (errorformat lines, a
// checkstyle error without a source); root, when set, is the repository's
// root, so that absolute paths under it are made relative.
func Read(r io.Reader, f Format, tool, root string) (Set, error) {
	lr := &io.LimitedReader{R: r, N: MaxFileBytes + 1}
	br := bufio.NewReaderSize(lr, 64<<10)
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		_, _ = br.Discard(3) // a byte order mark no decoder takes
	}
	if f == "" {
		head, _ := br.Peek(4096)
		f = Detect(head)
	}
	s := Set{Format: f}
	c := collector{set: &s, tool: tool, root: root}
	var err error
	switch f {
	case SARIF:
		err = readSARIF(br, &c)
	case RDJSON:
		err = readRDJSON(br, &c)
	case RDJSONL:
		err = readRDJSONL(br, &c)
	case Checkstyle:
		err = readCheckstyle(br, &c)
	case Errorformat:
		err = readErrorformat(br, &c)
	default:
		return s, fmt.Errorf("unknown evidence format %q", f)
	}
	s.Cut = lr.N <= 0
	if err != nil && s.Cut && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) {
		err = nil // cut at the bound: what arrived counts
	}
	if err != nil {
		return s, fmt.Errorf("reading %s: %w", f, err)
	}
	return s, nil
}

// Collect is a Set of results read from elsewhere than a file (a check
// run's annotations, code-scanning alerts: docs/architecture.md,
// Evidence), kept within the bounds and cleaned as a file's are; a result
// without a tool's name takes tool.
func Collect(source, tool string, rs []Result) Set {
	s := Set{Source: source}
	c := collector{set: &s, tool: tool}
	for _, r := range rs {
		c.add(r)
	}
	return s
}

// collector keeps a file's results within the bounds, cleaned.
type collector struct {
	set  *Set
	tool string
	root string
}

func (c *collector) add(r Result) {
	if len(c.set.Results) >= MaxResults {
		c.set.Dropped++
		return
	}
	file, ok := relative(r.File, c.root)
	if !ok {
		c.set.Dropped++
		return
	}
	r.File = file
	r.Tool = cmpOr(toolName(r.Tool), toolName(c.tool), "tool")
	r.Rule = clean(r.Rule, maxName)
	r.Message = clean(r.Message, maxMessage)
	r.Level = level(r.Level)
	if r.Line < 0 {
		r.Line = 0
	}
	if r.EndLine < r.Line {
		r.EndLine = 0
	}
	if r.Column < 0 {
		r.Column = 0
	}
	r.SecuritySeverity = min(max(r.SecuritySeverity, 0), 10)
	c.set.Results = append(c.set.Results, r)
}

// toolName is a tool's name as reports show it beside reviewers' models,
// unquoted: letters, digits and " ._+/-" (no "@" to mention anyone, no
// markup), at most 64 bytes.
func toolName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" ._+/-", r) {
			return r
		}
		return -1
	}, s)
	return text.Clip(strings.TrimSpace(text.OneLine(s)), 64)
}

// clean is tool text as gh-ocdx may show it: secrets masked, controls and
// gh-ocdx's own markup made inert, cut at n bytes.
func clean(s string, n int) string {
	s = strings.TrimSpace(text.Inert(s))
	return text.Clip(text.InertMarkup(redact.Mask(s)), n)
}

// relative is p as a path from the repository's root: a file URI's path,
// slashes, no "./"; an absolute path must be under root. A path that
// leaves the repository is refused.
func relative(p, root string) (string, bool) {
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		u, err := url.PathUnescape(rest) // a URI: "a%20b.go"
		if err != nil {
			return "", false
		}
		p = u
	}
	if p == "" || len(p) > 4096 || strings.ContainsAny(p, "\x00\n") {
		return "", false
	}
	p = filepath.ToSlash(p)
	if path.IsAbs(p) {
		if root == "" {
			return "", false
		}
		r := strings.TrimSuffix(filepath.ToSlash(root), "/") + "/"
		if !strings.HasPrefix(p, r) {
			return "", false
		}
		p = strings.TrimPrefix(p, r)
	}
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// level normalises a tool's level or severity word.
func level(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error", "e", "fatal", "critical", "high":
		return LevelError
	case "note", "info", "information", "i", "n", "none", "hint", "low", "style":
		return LevelNote
	default: // warning, w, medium, unknown, none given
		return LevelWarning
	}
}

func cmpOr(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// ToolOf names the tool of a result file whose format does not: the
// file's name up to its first dot ("shellcheck.txt" is shellcheck's).
func ToolOf(file string) string {
	base := filepath.Base(file)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}
