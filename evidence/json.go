package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// jsonObjectLine reports whether line is a whole JSON object that is not
// an rdjson or SARIF document on one line: the first line of rdjsonl.
func jsonObjectLine(line []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	_, runs := m["runs"]
	_, diags := m["diagnostics"]
	return !runs && !diags
}

// The SARIF 2.1.0 fields read (docs/architecture.md, Evidence); the rest
// of a log is skipped.
type sarifResult struct {
	RuleID    string `json:"ruleId"`
	RuleIndex *int   `json:"ruleIndex"`
	Rule      *struct {
		ID    string `json:"id"`
		Index *int   `json:"index"`
	} `json:"rule"`
	Level string `json:"level"`
	// Kind "pass" or "notApplicable" is not a problem; a result with a
	// suppression was accepted by the tool's user: neither is read.
	Kind         string            `json:"kind"`
	Suppressions []json.RawMessage `json:"suppressions"`
	Message      struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	} `json:"message"`
	Locations []struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region struct {
				StartLine   int `json:"startLine"`
				EndLine     int `json:"endLine"`
				StartColumn int `json:"startColumn"`
			} `json:"region"`
		} `json:"physicalLocation"`
	} `json:"locations"`
	Properties sarifProperties `json:"properties"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Properties           sarifProperties `json:"properties"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

// sarifProperties holds security-severity, a number in a string by
// GitHub's convention, or a number.
type sarifProperties struct {
	SecuritySeverity json.RawMessage `json:"security-severity"`
}

func (p sarifProperties) severity() float64 {
	s := strings.Trim(string(p.SecuritySeverity), `"`)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return f
}

type sarifTool struct {
	Driver struct {
		Name  string      `json:"name"`
		Rules []sarifRule `json:"rules"`
	} `json:"driver"`
}

// readSARIF walks a SARIF log token by token, decoding one result at a
// time, so that memory holds the results kept, not the file.
func readSARIF(r io.Reader, c *collector) error {
	d := json.NewDecoder(r)
	return object(d, func(key string) error {
		if key != "runs" {
			return skip(d)
		}
		return array(d, func() error { return sarifRun(d, c) })
	})
}

// sarifRun reads one run: its tool names the results, and its rules give
// their security severity and default level, whichever comes first.
func sarifRun(d *json.Decoder, c *collector) error {
	var tool sarifTool
	var pending []sarifResult
	err := object(d, func(key string) error {
		switch key {
		case "tool":
			return d.Decode(&tool)
		case "results":
			return each(d, c, &pending, func(res sarifResult) bool {
				return res.Kind != "pass" && res.Kind != "notApplicable" && len(res.Suppressions) == 0
			})
		}
		return skip(d)
	})
	if err != nil {
		return err
	}
	rules := tool.Driver.Rules
	for _, res := range pending {
		var rule *sarifRule
		idx := res.RuleIndex
		id := res.RuleID
		if res.Rule != nil {
			id = cmpOr(id, res.Rule.ID)
			if idx == nil {
				idx = res.Rule.Index
			}
		}
		if idx != nil && *idx >= 0 && *idx < len(rules) {
			rule = &rules[*idx]
		} else if id != "" {
			for i := range rules {
				if rules[i].ID == id {
					rule = &rules[i]
					break
				}
			}
		}
		out := Result{Tool: tool.Driver.Name, Rule: id, Level: res.Level, Message: cmpOr(res.Message.Text, res.Message.Markdown),
			SecuritySeverity: res.Properties.severity()}
		if rule != nil {
			out.Rule = cmpOr(out.Rule, rule.ID)
			out.Level = cmpOr(out.Level, rule.DefaultConfiguration.Level)
			if out.SecuritySeverity == 0 {
				out.SecuritySeverity = rule.Properties.severity()
			}
		}
		if len(res.Locations) > 0 {
			pl := res.Locations[0].PhysicalLocation
			out.File, out.Line, out.EndLine, out.Column = pl.ArtifactLocation.URI, pl.Region.StartLine, pl.Region.EndLine, pl.Region.StartColumn
		}
		c.add(out)
	}
	return nil
}

// rdjson's fields (reviewdog's Diagnostic and DiagnosticResult).
type rdDiagnostic struct {
	Message  string `json:"message"`
	Location struct {
		Path  string `json:"path"`
		Range struct {
			Start struct {
				Line   int `json:"line"`
				Column int `json:"column"`
			} `json:"start"`
			End struct {
				Line int `json:"line"`
			} `json:"end"`
		} `json:"range"`
	} `json:"location"`
	Severity string `json:"severity"`
	Source   struct {
		Name string `json:"name"`
	} `json:"source"`
	Code struct {
		Value string `json:"value"`
	} `json:"code"`
}

func (dg rdDiagnostic) result(tool, severity string) Result {
	r := dg.Location.Range
	return Result{Tool: cmpOr(dg.Source.Name, tool), File: dg.Location.Path, Line: r.Start.Line, EndLine: r.End.Line,
		Column: r.Start.Column, Level: cmpOr(dg.Severity, severity), Rule: dg.Code.Value, Message: dg.Message}
}

func readRDJSON(r io.Reader, c *collector) error {
	d := json.NewDecoder(r)
	var tool struct {
		Name string `json:"name"`
	}
	var severity string
	var pending []rdDiagnostic
	err := object(d, func(key string) error {
		switch key {
		case "source":
			return d.Decode(&tool)
		case "severity":
			return d.Decode(&severity)
		case "diagnostics":
			return each(d, c, &pending, func(rdDiagnostic) bool { return true })
		}
		return skip(d)
	})
	for _, dg := range pending {
		c.add(dg.result(tool.Name, severity))
	}
	return err
}

func readRDJSONL(r io.Reader, c *collector) error {
	return lines(r, maxJSONLine, func(n int, line []byte) error {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		var dg rdDiagnostic
		if err := json.Unmarshal(line, &dg); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		c.add(dg.result(c.tool, ""))
		return nil
	})
}

// lines calls f with each line of r, cut at limit bytes.
func lines(r io.Reader, limit int, f func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, limit)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			line = bytes.Clone(line[:min(len(line), limit)])
			for err == bufio.ErrBufferFull { // the rest of a line too long
				_, err = br.ReadSlice('\n')
			}
		}
		if len(line) > 0 {
			if ferr := f(n, bytes.TrimRight(line, "\r\n")); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// object reads a JSON object, calling f at each key with the decoder
// before its value, which f must read.
func object(d *json.Decoder, f func(key string) error) error {
	if err := delim(d, '{'); err != nil {
		return err
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if err := f(key); err != nil {
			return err
		}
	}
	_, err := d.Token()
	return err
}

// each decodes a JSON array's elements one at a time, appending those
// keep accepts to pending while the results stay under MaxResults (the
// rest are counted): memory holds the results, not the array.
func each[T any](d *json.Decoder, c *collector, pending *[]T, keep func(T) bool) error {
	return array(d, func() error {
		var v T
		if err := d.Decode(&v); err != nil {
			return err
		}
		if !keep(v) {
			return nil
		}
		if len(*pending)+len(c.set.Results) >= MaxResults {
			c.set.Dropped++
			return nil
		}
		*pending = append(*pending, v)
		return nil
	})
}

// array reads a JSON array, calling f before each element, which f must read.
func array(d *json.Decoder, f func() error) error {
	if err := delim(d, '['); err != nil {
		return err
	}
	for d.More() {
		if err := f(); err != nil {
			return err
		}
	}
	_, err := d.Token()
	return err
}

func delim(d *json.Decoder, want json.Delim) error {
	t, err := d.Token()
	if err != nil {
		return err
	}
	if t != want {
		return fmt.Errorf("expected %v, found %v", want, t)
	}
	return nil
}

// skip reads one value of any kind, without keeping it.
func skip(d *json.Decoder) error {
	depth := 0
	for {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
