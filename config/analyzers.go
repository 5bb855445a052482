package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/evidence"
)

// Analyzer is one entry of "analyzers": a command whose standard output is
// tool results, run on the head of a same-repository PR at the standard and
// deep tiers, and on the working tree by gh ocdx review (docs/architecture.md,
// Evidence).
type Analyzer struct {
	Name    string          // the tool's name, as findings show it
	Argv    []string        // run as is: no shell, nothing expanded
	Format  evidence.Format // "" detects it
	Timeout time.Duration   // DefaultAnalyzerTimeout when not set
}

// Command is the analyzer's argv as one line, for messages and approvals.
func (a Analyzer) Command() string { return strings.Join(a.Argv, " ") }

// Bounds of "analyzers".
const (
	DefaultAnalyzerTimeout = 5 * time.Minute
	MaxAnalyzerTimeout     = 30 * time.Minute
	MaxAnalyzers           = 10
)

// AnalyzerExample is an entry of "analyzers", as problems and config
// init's next steps show it.
const AnalyzerExample = `{"name": "staticcheck", "argv": ["staticcheck", "-f", "text", "./..."], "format": "errorformat", "timeout": 300}`

// analyzers decodes [{"name", "argv", "format", "timeout"}].
func (c *checker) analyzers(m member) []Analyzer {
	elems, ok := c.list(m, "analyzers", "objects such as "+AnalyzerExample)
	if !ok {
		return nil
	}
	if len(elems) > MaxAnalyzers {
		c.add(m.off, "analyzers", "has %d entries, at most %d are allowed; remove %d", len(elems), MaxAnalyzers, len(elems)-MaxAnalyzers)
	}
	var out []Analyzer
	for i, e := range elems {
		key := fmt.Sprintf("analyzers[%d]", i)
		a, ok := c.analyzer(e, key)
		if !ok {
			continue
		}
		if slices.ContainsFunc(out, func(b Analyzer) bool { return strings.EqualFold(b.Name, a.Name) }) {
			c.add(e.off, key+".name", "repeats %q; give each analyzer its own name", a.Name)
			continue
		}
		out = append(out, a)
	}
	return out
}

// analyzer decodes one entry of "analyzers".
func (c *checker) analyzer(e member, key string) (Analyzer, bool) {
	if len(e.raw) == 0 || e.raw[0] != '{' {
		c.add(e.off, key, "must be an object such as %s, found %s", AnalyzerExample, kind(e.raw))
		return Analyzer{}, false
	}
	fields, err := c.members(e.raw, e.off)
	if err != nil {
		c.add(e.off, key, "%v", err)
		return Analyzer{}, false
	}
	before := len(c.problems)
	byKey := c.keys(fields, []string{"name", "argv", "format", "timeout"})
	a := Analyzer{Timeout: DefaultAnalyzerTimeout}
	if n, found := byKey["name"]; !found {
		c.add(e.off, key, `has no "name"; name the tool, for example "staticcheck": its findings are shown under it`)
	} else if a.Name, _ = c.str(n, key+".name", "staticcheck"); a.Name != "" && !toolName(a.Name) {
		c.add(n.off, key+".name", "is %q; a name is 1 to 64 letters, digits and . _ + / -", a.Name)
	}
	if v, found := byKey["argv"]; !found {
		c.add(e.off, key, `has no "argv"; give the command as a list, for example ["staticcheck", "./..."]`)
	} else {
		a.Argv = c.argv(v, key+".argv")
	}
	if f, found := byKey["format"]; found {
		if s, ok := c.str(f, key+".format", "sarif"); ok {
			var err error
			if a.Format, err = evidence.ParseFormat(s); err != nil || s == "" {
				c.add(f.off, key+".format", "%q is not a format gh-ocdx reads: use one of %s, or leave it out to detect it", s, evidence.FormatNames())
			}
		}
	}
	if t, found := byKey["timeout"]; found {
		var n int64
		if json.Unmarshal(t.raw, &n) != nil || n <= 0 || time.Duration(n)*time.Second > MaxAnalyzerTimeout {
			c.add(t.off, key+".timeout", "must be a whole number of seconds from 1 to %d, found %s", int(MaxAnalyzerTimeout/time.Second), strings.TrimSpace(string(t.raw)))
		} else {
			a.Timeout = time.Duration(n) * time.Second
		}
	}
	return a, len(c.problems) == before
}

// argv decodes a non-empty list of non-empty strings.
func (c *checker) argv(m member, key string) []string {
	elems, ok := c.list(m, key, `strings, such as ["staticcheck", "./..."]`)
	if !ok {
		return nil
	}
	if len(elems) == 0 {
		c.add(m.off, key, `is empty; give the program and its arguments, such as ["staticcheck", "./..."]`)
	}
	var out []string
	for i, e := range elems {
		s, ok := c.str(e, fmt.Sprintf("%s[%d]", key, i), "./...")
		switch {
		case !ok:
		case i == 0 && strings.TrimSpace(s) == "":
			c.add(e.off, fmt.Sprintf("%s[%d]", key, i), "is empty; name the program to run")
		default:
			out = append(out, s)
		}
	}
	return out
}

// toolName reports whether s is a name findings may show unquoted: what
// evidence keeps of a tool's name.
func toolName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+/-", r)) {
			return false
		}
	}
	return true
}
