package evidence

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// SourceType is the finding.Source type of a tool's finding.
const SourceType = "tool"

// MaxBrief bounds the evidence a reviewer's task shows: past it, the
// results are counted, not listed.
const MaxBrief = 8 << 10

// maxRange bounds the lines of one result's range looked at for a changed
// line: a result over a whole file is about none of them in particular.
const maxRange = 50

// nearLines is how far apart a tool's line and a reviewer's may be for
// the two to be one problem, as consensus.Distinct allows between reviewers.
const nearLines = 3

// Own reports whether f is a tool's result turned finding.
func Own(f finding.Finding) bool { return f.Source != nil && f.Source.Type == SourceType }

// Changed are the lines a diff adds, by file in the PR's version.
type Changed map[string]map[int]bool

// ChangedLines reads the lines d adds (what parses of it).
func ChangedLines(d []byte) Changed {
	c := Changed{}
	_ = diff.Walk(bytes.NewReader(d), diff.Visitor{Line: func(f *diff.File, l diff.Line) error {
		if l.Kind == diff.Add && f.NewPath != "" {
			if c[f.NewPath] == nil {
				c[f.NewPath] = map[int]bool{}
			}
			c[f.NewPath][l.New] = true
		}
		return nil
	}})
	return c
}

// at is the first changed line of r's range, 0 for none.
func (c Changed) at(r Result) int {
	lines := c[r.File]
	if lines == nil || r.Line <= 0 {
		return 0
	}
	end := min(max(r.EndLine, r.Line), r.Line+maxRange)
	for n := r.Line; n <= end; n++ {
		if lines[n] {
			return n
		}
	}
	return 0
}

// Fused is what a review makes of the evidence: the results on the lines
// the PR changes, and a count of the rest.
type Fused struct {
	OnChanged []Result
	Counts    diff.Evidence
}

// Fuse keeps the results of sets on a line the PR changes (their range
// holds an added line of d; docs/architecture.md, Evidence): the others
// are about code the PR did not touch and are only counted.
func Fuse(sets []Set, changed Changed) Fused {
	var out Fused
	for _, s := range sets {
		out.Counts.Dropped += s.Dropped
		for _, r := range s.Results {
			out.Counts.Results++
			if !slices.Contains(out.Counts.Tools, r.Tool) {
				out.Counts.Tools = append(out.Counts.Tools, r.Tool)
			}
			if changed.at(r) == 0 {
				out.Counts.LeftOut++
				continue
			}
			out.OnChanged = append(out.OnChanged, r)
		}
	}
	out.Counts.OnChanged = len(out.OnChanged)
	slices.SortStableFunc(out.OnChanged, func(a, b Result) int {
		return cmp.Or(strings.Compare(a.File, b.File), a.Line-b.Line, a.Column-b.Column, strings.Compare(a.Tool, b.Tool))
	})
	return out
}

// Priority is a result's priority by the one table (docs/architecture.md,
// Evidence): security severity 9 or more P0, 7 or more P1; else error P1,
// warning P2, note P3; the more severe of the two.
func Priority(r Result) string {
	p := "P2"
	switch r.Level {
	case LevelError:
		p = "P1"
	case LevelNote:
		p = "P3"
	}
	switch {
	case r.SecuritySeverity >= 9:
		return "P0"
	case r.SecuritySeverity >= 7:
		return min(p, "P1")
	}
	return p
}

// Findings are the findings of the results on changed lines: each named
// for its tool, a security finding when the tool gave a security severity.
// The title is the rule, a colon and the message's first line, so that a
// reviewer's finding naming the rule is known for the same problem
// (Confirms).
func Findings(rs []Result, now string) []finding.Finding {
	var out []finding.Finding
	for _, r := range rs {
		line := r.Line
		cat := "quality"
		if r.SecuritySeverity > 0 {
			cat = "security"
		}
		title := text.Clip(text.OneLine(r.Message), 160)
		if r.Rule != "" {
			title = r.Rule + ": " + title
		}
		where := fmt.Sprintf("%s:%d", r.File, r.Line)
		if r.Column > 0 {
			where += fmt.Sprintf(":%d", r.Column)
		}
		desc := fmt.Sprintf("%s reports at %s (%s", r.Tool, where, r.Level)
		if r.Rule != "" {
			desc += ", rule " + r.Rule
		}
		if r.SecuritySeverity > 0 {
			desc += fmt.Sprintf(", security severity %.1f", r.SecuritySeverity)
		}
		desc += "): " + r.Message
		f := finding.Finding{Priority: Priority(r), Category: cat, File: r.File, Line: &line, Title: title, Description: desc,
			Source: &finding.Source{Type: SourceType, Name: r.Tool, Timestamp: now}, Tools: []string{r.Tool}}
		if r.EndLine > r.Line {
			end := r.EndLine
			f.EndLine = &end
		}
		f.ID = f.ComputeID()
		out = append(out, f)
	}
	return out
}

// Confirms reports whether a reviewer's finding m is about the problem of
// a tool's finding t: at the same file, its line within nearLines of t's
// range, and naming t's rule (or, without a rule, the tool) in its title
// or description. A reviewer given the evidence names the rule it
// confirms; two problems on one line stay two.
func Confirms(t, m finding.Finding) bool {
	if !Own(t) || Own(m) || t.File != m.File || t.Line == nil || m.Line == nil {
		return false
	}
	end := *t.Line
	if t.EndLine != nil {
		end = max(end, *t.EndLine)
	}
	if *m.Line < *t.Line-nearLines || *m.Line > end+nearLines {
		return false
	}
	name := t.Source.Name
	if rule, _, ok := strings.Cut(t.Title, ": "); ok && len(rule) >= 3 && !strings.ContainsAny(rule, " \t") {
		name = rule
	}
	said := strings.ToLower(m.Title + "\n" + m.Description)
	return len(name) >= 3 && strings.Contains(said, strings.ToLower(name))
}

// Brief is the evidence on changed lines as a reviewer's task shows it,
// at most MaxBrief bytes, one result a line, in file and line order; ""
// when there is none.
func Brief(rs []Result) string {
	var b strings.Builder
	for i, r := range rs {
		rule := ""
		if r.Rule != "" {
			rule = " " + r.Rule
		}
		line := fmt.Sprintf("- `%s:%d` %s%s (%s): %s\n", r.File, r.Line, r.Tool, rule, r.Level, text.Clip(text.OneLine(r.Message), 300))
		if b.Len()+len(line) > MaxBrief {
			fmt.Fprintf(&b, "[%s left out: the evidence is cut at 8KB]\n", text.Plural(len(rs)-i, "more result"))
			break
		}
		b.WriteString(line)
	}
	return b.String()
}
