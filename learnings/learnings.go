// Package learnings is a repository's learnings file, .ocdx/learnings.md
// (docs/architecture.md, Learnings): what its maintainers decided on
// earlier pull requests, each learning a sentence for the reviewers and a
// rule gh-ocdx applies itself to a round's findings. gh ocdx learn
// proposes learnings; a person merges them; a review reads the file from
// the base branch only.
package learnings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/glob"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// File is the learnings file's path in a repository.
const File = ".ocdx/learnings.md"

// MaxBytes caps what is read of the file: the learnings past it are not
// read, and a warning says so.
const MaxBytes = 16 << 10

// Action is what a rule does to a finding it matches.
type Action string

const (
	LeaveOut Action = "leave-out" // not counted, posted or fixed
	Lower    Action = "lower"     // its priority lowered to Rule.To
)

// Rule says which findings a learning is about and what gh-ocdx does to
// them. A finding matches when it has every criterion the rule sets: its
// ID's category code, its file under the glob, every term among its
// title's words. A P0, SEC- or THREAD- finding never matches.
type Rule struct {
	Category string   `json:"category,omitempty"` // an ID's code: PERF, QUAL, TEST…
	Path     string   `json:"path,omitempty"`     // a glob, as .ocdx.json's (paths, ignore)
	Terms    []string `json:"terms,omitempty"`    // lower-case words the title must hold, all of them
	Action   Action   `json:"action"`
	To       string   `json:"to,omitempty"` // Lower: P1, P2 or P3
	// Reasons are what people said when they dismissed the findings the
	// learning rests on, PRs the pull requests: the record, not criteria.
	Reasons []string `json:"reasons,omitempty"`
	PRs     []int    `json:"prs,omitempty"`
}

// Learning is one learning of the file: its heading, the sentence the
// reviewers are given, and its rule.
type Learning struct {
	Title    string `json:"title"`
	Sentence string `json:"sentence"`
	Rule     Rule   `json:"rule"`
}

// ruleOpen starts the line that holds a learning's rule, as JSON.
const ruleOpen, ruleClose = "<!-- ocdx:learning ", " -->"

// The bounds of a rule.
const (
	maxTerms, maxReasons, maxPRs = 5, 5, 100
	maxPath, maxReason           = 200, 200
)

var (
	reCategory = regexp.MustCompile(`^[A-Z]{2,6}$`)
	reTerm     = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{1,39}$`)
)

// Validate checks r is a rule gh-ocdx applies: of known shape and bounds,
// about something (a category, a path or terms), and never about SEC-
// or THREAD- findings.
func (r Rule) Validate() error {
	switch {
	case r.Category == "" && r.Path == "" && len(r.Terms) == 0:
		return fmt.Errorf("it names no category, path or terms: it would match every finding")
	case r.Category != "" && !reCategory.MatchString(r.Category):
		return fmt.Errorf("category %q is not an ID's code (PERF, QUAL…)", r.Category)
	case r.Category == "SEC" || r.Category == "THREAD":
		return fmt.Errorf("a learning never applies to %s- findings", r.Category)
	case len(r.Path) > maxPath || strings.Contains(r.Path, "..") || hasControl(r.Path):
		return fmt.Errorf("path %q is not a glob of the repository's files", r.Path)
	case len(r.Terms) > maxTerms || len(r.Reasons) > maxReasons || len(r.PRs) > maxPRs:
		return fmt.Errorf("at most %d terms, %d reasons and %d pull requests", maxTerms, maxReasons, maxPRs)
	case r.Action == LeaveOut && r.To != "":
		return fmt.Errorf("a rule that leaves findings out lowers them to no priority")
	case r.Action == Lower && !slices.Contains(finding.Priorities[1:], r.To):
		return fmt.Errorf("lower to %q: want P1, P2 or P3", r.To)
	case r.Action != LeaveOut && r.Action != Lower:
		return fmt.Errorf("action %q: want %s or %s", r.Action, LeaveOut, Lower)
	}
	for _, t := range r.Terms {
		if !reTerm.MatchString(t) {
			return fmt.Errorf("term %q is not a lower-case word", t)
		}
	}
	for _, why := range r.Reasons {
		if len(why) > maxReason || hasControl(why) {
			return fmt.Errorf("a reason of more than %d bytes or of control characters", maxReason)
		}
	}
	for _, n := range r.PRs {
		if n <= 0 {
			return fmt.Errorf("pull request %d", n)
		}
	}
	return nil
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// Protected reports whether no learning may touch f: a P0, a secret
// (SEC-) or a person's review thread (THREAD-).
func Protected(f finding.Finding) bool {
	return f.Priority == "P0" || strings.HasPrefix(f.ID, "SEC-") || strings.HasPrefix(f.ID, "THREAD-")
}

// Code is the category code of a finding's ID ("PERF" of "PERF-1a2b3c4d").
func Code(id string) string {
	code, _, _ := strings.Cut(id, "-")
	return code
}

// Matches reports whether r is about f (Rule).
func (r Rule) Matches(f finding.Finding) bool {
	if Protected(f) || r.Category != "" && Code(f.ID) != r.Category {
		return false
	}
	if r.Path != "" && (f.File == "" || !glob.Match(r.Path, f.File)) {
		return false
	}
	words := TitleWords(f.Title)
	for _, t := range r.Terms {
		if !slices.Contains(words, t) {
			return false
		}
	}
	return true
}

// TitleWords are a title's words, lower-cased: letters and digits.
func TitleWords(title string) []string {
	return strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	})
}

// Parse reads a learnings file: each learning is a "## " heading, its
// first paragraph (the sentence for the reviewers) and the line
// "<!-- ocdx:learning {rule} -->". A rule that is not of gh-ocdx's shape is
// left out with a warning; so is what lies past MaxBytes.
func Parse(src string) (ls []Learning, warnings []string) {
	if len(src) > MaxBytes {
		cut := strings.LastIndexByte(src[:MaxBytes], '\n')
		src = src[:max(cut, 0)]
		warnings = append(warnings, fmt.Sprintf("%s is larger than %d KB: the learnings past it are not read", File, MaxBytes>>10))
	}
	var title, sentence string
	inSentence := false
	for n, line := range strings.Split(src, "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "## "):
			title, sentence, inSentence = strings.TrimSpace(line[3:]), "", true
		case strings.HasPrefix(trimmed, ruleOpen) && strings.HasSuffix(trimmed, ruleClose):
			r, err := parseRule(strings.TrimSuffix(strings.TrimPrefix(trimmed, ruleOpen), ruleClose))
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s, line %d: the rule is left out: %v", File, n+1, err))
				continue
			}
			ls = append(ls, Learning{Title: title, Sentence: sentence, Rule: r})
			title, sentence, inSentence = "", "", false
		case trimmed == "":
			inSentence = inSentence && sentence == ""
		case inSentence:
			sentence = strings.TrimSpace(sentence + " " + trimmed)
		}
	}
	return ls, warnings
}

// parseRule decodes a rule strictly: one JSON object of Rule's fields.
func parseRule(s string) (Rule, error) {
	var r Rule
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Rule{}, err
	}
	if dec.More() {
		return Rule{}, fmt.Errorf("text after the rule's JSON")
	}
	return r, r.Validate()
}

// Applied counts what a round's learnings did: the findings left out and
// lowered, by ID.
type Applied struct {
	LeftOut []string `json:"leftOut,omitempty"`
	Lowered []string `json:"lowered,omitempty"`
}

// String says it as a report does: "2 left out and 1 lowered by
// .ocdx/learnings.md"; "" when nothing was.
func (a Applied) String() string {
	var parts []string
	if n := len(a.LeftOut); n > 0 {
		parts = append(parts, fmt.Sprintf("%d left out", n))
	}
	if n := len(a.Lowered); n > 0 {
		parts = append(parts, fmt.Sprintf("%d lowered", n))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " and ") + " by " + File
}

// Apply is fs with ls's rules applied: the first learning (in the file's
// order) whose rule matches a finding and changes it decides. A finding
// left out is not in kept; one lowered is, at its rule's priority. A P0,
// SEC- or THREAD- finding is never touched (Protected).
func Apply(fs []finding.Finding, ls []Learning) (kept []finding.Finding, a Applied) {
	kept = make([]finding.Finding, 0, len(fs))
	for _, f := range fs {
		for _, l := range ls {
			if !l.Rule.Matches(f) {
				continue
			}
			if l.Rule.Action == LeaveOut {
				a.LeftOut = append(a.LeftOut, f.ID)
				f.ID = "" // dropped below
				break
			}
			if rank(f.Priority) < rank(l.Rule.To) {
				f.Priority = l.Rule.To
				a.Lowered = append(a.Lowered, f.ID)
				break
			}
		}
		if f.ID != "" {
			kept = append(kept, f)
		}
	}
	return kept, a
}

// Instructions are the learnings' sentences as the reviewers are given
// them, beside REVIEW.md; "" when there are none.
func Instructions(ls []Learning) string {
	var b strings.Builder
	for _, l := range ls {
		if s := strings.TrimSpace(cmpOr(l.Sentence, l.Title)); s != "" {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "From " + File + " (what this repository's maintainers decided on earlier pull requests; gh-ocdx also applies these itself):\n\n" + strings.TrimRight(b.String(), "\n")
}

// rank orders priorities, most severe first; an unknown one last (never
// lowered).
func rank(p string) int {
	if i := slices.Index(finding.Priorities, p); i >= 0 {
		return i
	}
	return len(finding.Priorities)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Header opens a new learnings file.
const Header = `# Learnings

What this repository's maintainers decided on earlier pull requests, as
` + "`gh ocdx learn`" + ` proposed it and a person merged it. gh-ocdx gives each
learning's sentence to its reviewers and applies its rule itself (the
JSON in the comment under it): the findings it names are left out, or
lowered, never a P0, a secret or a person's thread. Edit or delete a
learning like any text; the base branch's copy is the one that counts.
`

// Render is l as the file holds it: heading, sentence, what it rests on,
// and its rule as one line of JSON in a hidden comment.
func Render(l Learning) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%s\n\n", text.OneLine(l.Title), text.OneLine(l.Sentence))
	if len(l.Rule.PRs) > 0 {
		fmt.Fprintf(&b, "Rests on %s.\n\n", prList(l.Rule.PRs))
	}
	var js bytes.Buffer
	enc := json.NewEncoder(&js) // escapes <, > and &: no "-->" inside
	enc.Encode(l.Rule)
	fmt.Fprintf(&b, "%s%s%s\n", ruleOpen, strings.TrimSpace(js.String()), ruleClose)
	return b.String()
}

// prList names pull requests as "#2, #4 and #9", the first 20 of them.
func prList(prs []int) string {
	const most = 20
	var names []string
	for _, n := range prs[:min(len(prs), most)] {
		names = append(names, fmt.Sprintf("#%d", n))
	}
	if len(prs) > most {
		return strings.Join(names, ", ") + fmt.Sprintf(" and %d more", len(prs)-most)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Append is old with ls added after what it holds, which is kept byte for
// byte (a missing last newline added); a new file opens with Header.
func Append(old string, ls []Learning) string {
	if len(ls) == 0 {
		return old
	}
	var b strings.Builder
	b.WriteString(old)
	switch {
	case old == "":
		b.WriteString(Header)
	case !strings.HasSuffix(old, "\n"):
		b.WriteString("\n")
	}
	for _, l := range ls {
		b.WriteString("\n")
		b.WriteString(Render(l))
	}
	return b.String()
}

// ValidText reports whether b can be read as the file: UTF-8 text.
func ValidText(b []byte) bool { return utf8.Valid(b) && !bytes.ContainsRune(b, 0) }
