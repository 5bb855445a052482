package reviewpr

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/github"
)

// What Decide shows and lets the person edit (docs/architecture.md,
// review-pr): each inline comment where it will be posted, a suggestion as
// the lines it replaces and the lines it would become, and an editable
// text of the whole review that reads back into a body and comments.

// Diff is the PR's diff in the task: the lines a comment may be on, and
// the text of those lines.
type Diff struct {
	anchors     diff.Lines
	right, left map[string]map[int]string // path → line number → text
}

// NewDiff reads a unified diff (the task's, whole or cut short).
func NewDiff(unified string) *Diff {
	files, _ := diff.Parse([]byte(unified)) // Parse fails only on a reader's error, and bytes have none
	d := &Diff{anchors: diff.Index(files), right: map[string]map[int]string{}, left: map[string]map[int]string{}}
	for _, f := range files {
		p := f.Path()
		if d.right[p] == nil {
			d.right[p], d.left[p] = map[int]string{}, map[int]string{}
		}
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				t := strings.TrimSuffix(l.Text, "\r")
				if l.Kind != diff.Del {
					d.right[p][l.New] = t
				}
				if l.Kind != diff.Add {
					d.left[p][l.Old] = t
				}
			}
		}
	}
	return d
}

// on says whether c is on lines of the diff, as GitHub requires.
func (d *Diff) on(c github.ReviewComment) bool {
	if d == nil {
		return false
	}
	_, ok := d.anchors.Anchor(c.Path, c.StartLine, c.Line, c.Side)
	return ok
}

// lines are the text of c's lines on its side, as the diff shows them;
// false when it does not show them all.
func (d *Diff) lines(c github.ReviewComment) ([]string, bool) {
	if !d.on(c) {
		return nil, false
	}
	text := d.right[c.Path]
	if strings.EqualFold(c.Side, diff.Left) {
		text = d.left[c.Path]
	}
	start := c.StartLine
	if start <= 0 || start > c.Line {
		start = c.Line
	}
	var out []string
	for n := start; n <= c.Line; n++ {
		out = append(out, text[n])
	}
	return out, true
}

// At is where a comment is posted: path:line, path:start-end for a range,
// and "(LEFT)" when it is on the base's lines (removed lines).
func At(c github.ReviewComment) string {
	at := c.Path + ":" + strconv.Itoa(c.Line)
	if c.StartLine > 0 && c.StartLine < c.Line {
		at = fmt.Sprintf("%s:%d-%d", c.Path, c.StartLine, c.Line)
	}
	if strings.EqualFold(c.Side, diff.Left) {
		at += " (LEFT)"
	}
	return at
}

// Part is a piece of an inline comment as Decide shows it: words (Markdown,
// as posted), or a suggestion as a diff: the lines it replaces ("-") and
// the lines it would become ("+").
type Part struct {
	Text string
	Diff []string
}

// Shown is an inline comment as Decide shows it.
type Shown struct {
	At    string
	Parts []Part
}

// Shown is every inline comment of the proposal, in order, as it will be
// posted: a suggestion fence (gh-ocdx's, or the person's own in an edit)
// shows as the diff it proposes. The replaced lines come from the diff;
// when it does not show them, only the new lines are shown.
func (p Proposal) Shown() []Shown {
	out := make([]Shown, 0, len(p.Comments))
	for _, c := range p.Comments {
		old, _ := p.Diff.lines(c)
		s := Shown{At: At(c)}
		for _, seg := range splitSuggestions(c.Body) {
			if seg.suggestion == nil {
				if t := strings.Trim(seg.text, "\n"); strings.TrimSpace(t) != "" {
					s.Parts = append(s.Parts, Part{Text: t})
				}
				continue
			}
			var d []string
			for _, l := range old {
				d = append(d, "-"+l)
			}
			for _, l := range *seg.suggestion {
				d = append(d, "+"+l)
			}
			s.Parts = append(s.Parts, Part{Diff: d})
		}
		out = append(out, s)
	}
	return out
}

// segment is a run of a comment's body: words, or a suggestion's lines.
type segment struct {
	text       string
	suggestion *[]string
}

// reSuggestionFence opens a suggestion as GitHub reads one: a fence of
// three or more backticks or tildes whose info string is "suggestion".
var reSuggestionFence = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})\\s*suggestion\\s*$")

// splitSuggestions cuts body into words and suggestions. A fence runs to a
// closing fence of its character at least as long, or to the end, as in
// CommonMark. Model text reaches here with its fences made inert
// (text.InertMarkup), so only gh-ocdx's suggestion, or the person's, is one.
func splitSuggestions(body string) []segment {
	var out []segment
	var words []string
	lines := strings.Split(body, "\n")
	for i := 0; i < len(lines); i++ {
		m := reSuggestionFence.FindStringSubmatch(lines[i])
		if m == nil {
			words = append(words, lines[i])
			continue
		}
		out = append(out, segment{text: strings.Join(words, "\n")})
		words = nil
		fence := m[1]
		sugg := []string{}
		for i++; i < len(lines); i++ {
			t := strings.TrimSpace(lines[i])
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				break
			}
			sugg = append(sugg, lines[i])
		}
		out = append(out, segment{suggestion: &sugg})
	}
	return append(out, segment{text: strings.Join(words, "\n")})
}

// editHelp opens the text the person edits; it is taken out again.
const editHelp = `<!-- Edit the review. The body comes first; each inline comment follows its
     "comment on PATH:LINE" line (PATH:START-END for a range, "(LEFT)" for removed lines).
     Delete a comment's line and its text to drop it, edit the text to change it,
     or name another line of the PR's diff. This note is not posted. -->

`

// markerPrefix starts the line that opens an inline comment in the edit.
// Model text cannot write it: "<!" in its words is made "&lt;!"
// (text.InertMarkup), so only gh-ocdx's own lines open a comment.
const markerPrefix = "<!-- comment on "

// reMarker reads a comment's line: path, line or start-end, and side.
var reMarker = regexp.MustCompile(`^<!-- comment on (.+):(\d+)(?:-(\d+))?(?: \((LEFT|RIGHT)\))? -->$`)

// EditText is the review as the person edits it: the body, then each
// inline comment under its marker line. Edited reads it back.
func (p Proposal) EditText() string {
	var b strings.Builder
	b.WriteString(editHelp)
	b.WriteString(strings.TrimRight(p.Body, "\n"))
	b.WriteString("\n")
	for _, c := range p.Comments {
		fmt.Fprintf(&b, "\n%s%s -->\n%s\n", markerPrefix, At(c), strings.Trim(c.Body, "\n"))
	}
	return b.String()
}

// Edited reads the person's edit of EditText: the body before the first
// comment line, and each comment under its line. A comment must be on
// lines of the PR's diff and have text, as GitHub requires; the error says
// which is not and what to do.
func (p Proposal) Edited(s string) (Proposal, error) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	// The note goes, even when the person touched it.
	if t := strings.TrimLeft(s, " \t\n"); strings.HasPrefix(t, editHelp[:len("<!-- Edit the review.")]) {
		if end := strings.Index(t, "-->"); end >= 0 {
			s = t[end+len("-->"):]
		}
	}
	var body []string
	var comments []github.ReviewComment
	var texts [][]string
	var bad []string
	for i, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), markerPrefix) {
			if len(comments) == 0 {
				body = append(body, l)
			} else {
				texts[len(texts)-1] = append(texts[len(texts)-1], l)
			}
			continue
		}
		m := reMarker.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			bad = append(bad, fmt.Sprintf("line %d, %q, names no place: write %sPATH:LINE --> (or PATH:START-END)", i+1, strings.TrimSpace(l), markerPrefix))
			// Its text still belongs to a comment, not to the body.
			comments, texts = append(comments, github.ReviewComment{}), append(texts, nil)
			continue
		}
		c := github.ReviewComment{Path: m[1], Side: diff.Right}
		c.Line, _ = strconv.Atoi(m[2])
		if m[3] != "" {
			c.StartLine = c.Line
			c.Line, _ = strconv.Atoi(m[3])
		}
		if m[4] == diff.Left {
			c.Side = diff.Left
		}
		if !p.Diff.on(c) {
			bad = append(bad, fmt.Sprintf("%s is not on a line of the PR's diff, where GitHub refuses comments: name a line of its file's hunks, or delete the comment", At(c)))
		}
		comments, texts = append(comments, c), append(texts, nil)
	}
	out := Proposal{Event: p.Event, Proposed: p.Proposed, Diff: p.Diff, Body: strings.TrimSpace(strings.Join(body, "\n"))}
	for i, c := range comments {
		c.Body = strings.Trim(strings.Join(texts[i], "\n"), "\n")
		if c.Path == "" {
			continue // reported above
		}
		if strings.TrimSpace(c.Body) == "" {
			bad = append(bad, fmt.Sprintf("the comment on %s has no text: write it, or delete its line to drop it", At(c)))
		}
		out.Comments = append(out.Comments, c)
	}
	if len(bad) > 0 {
		return Proposal{}, &EditError{Problems: bad}
	}
	return out, nil
}

// EditError is an edit that cannot be posted, with each reason.
type EditError struct{ Problems []string }

func (e *EditError) Error() string {
	return "the edit cannot be posted: " + strings.Join(e.Problems, "; ")
}
