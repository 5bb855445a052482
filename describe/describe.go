// Package describe writes gh ocdx describe's description of a pull request:
// the model's task over the PR's deterministic context, the check of its
// envelope against that context, the Markdown it is shown and posted as,
// and its place in the PR's body between gh-ocdx's markers
// (docs/architecture.md, Describe).
package describe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/prompts"
)

// Bounds on what the task carries beside the diff, which change.DiffLimit
// bounds: a PR's body, its issues and commits are the author's and could
// otherwise crowd the diff out.
const (
	MaxIssues     = 5
	MaxIssueText  = 8 << 10
	MaxBodyText   = 8 << 10
	MaxCommitLine = 200
	// MaxSummary and MaxDiagram bound the model's longest texts in a
	// description, which may open a review-loop report too.
	MaxSummary = 4 << 10
	MaxDiagram = 4 << 10
)

// Status values of a requirement.
const (
	Met     = "met"
	NotMet  = "not met"
	Unclear = "unclear"
)

// Input is the PR's deterministic context a description is written from.
type Input struct {
	Review  *change.Context // the PR and its diff, cut as a review's
	Commits []github.Commit
	Issues  []github.Issue // the linked issues, read in full
	Diagram bool           // --diagram: ask for a Mermaid diagram
}

// Envelope is the model's answer.
type Envelope struct {
	Summary     string       `json:"summary"`
	Walkthrough []Group      `json:"walkthrough"`
	Issues      []IssueCheck `json:"issues"`
	Diagram     string       `json:"diagram,omitempty"`
}

// Group is changed files with one purpose.
type Group struct {
	Purpose string   `json:"purpose"`
	Files   []string `json:"files"`
}

// IssueCheck is a linked issue's requirements and whether the PR meets them.
type IssueCheck struct {
	Number       int           `json:"number"`
	Title        string        `json:"title,omitempty"` // filled from the issue, never the model's
	Requirements []Requirement `json:"requirements"`
}

// Requirement is one requirement an issue states.
type Requirement struct {
	Text   string   `json:"text"`
	Status string   `json:"status"`
	Lines  []string `json:"lines,omitempty"`
}

// Validate rejects an envelope that is not a description: checked like
// the reviewers' (docs/architecture.md, Envelopes).
func (e *Envelope) Validate() error {
	if strings.TrimSpace(e.Summary) == "" {
		return errors.New("summary is empty")
	}
	if len(e.Walkthrough) == 0 {
		return errors.New("walkthrough is empty")
	}
	for i, g := range e.Walkthrough {
		if strings.TrimSpace(g.Purpose) == "" {
			return fmt.Errorf("walkthrough[%d].purpose is empty", i)
		}
		if len(g.Files) == 0 {
			return fmt.Errorf("walkthrough[%d].files is empty", i)
		}
	}
	for i, is := range e.Issues {
		if is.Number <= 0 {
			return fmt.Errorf("issues[%d].number %d is not an issue number", i, is.Number)
		}
		for j, r := range is.Requirements {
			if strings.TrimSpace(r.Text) == "" {
				return fmt.Errorf("issues[%d].requirements[%d].text is empty", i, j)
			}
			if !slices.Contains([]string{Met, NotMet, Unclear}, r.Status) {
				return fmt.Errorf("issues[%d].requirements[%d].status %q: want %q, %q or %q", i, j, r.Status, Met, NotMet, Unclear)
			}
		}
	}
	return nil
}

// Task is the model's task: the PR's context, as review-pr's, with its
// commits and its linked issues' text.
func Task(in Input) (string, error) {
	rc := in.Review
	body := clip(posts.AuthorBody(rc.PR.Body), MaxBodyText)
	if strings.TrimSpace(body) == "" {
		body = "(no description)"
	}
	var commits []string
	for _, c := range in.Commits {
		commits = append(commits, text.ShortOID(c.OID)+" "+text.Clip(text.OneLine(text.FirstLine(c.Message)), MaxCommitLine))
	}
	type issue struct {
		Number      int
		Title, Body string
	}
	var issues []issue
	for _, is := range in.Issues {
		issues = append(issues, issue{is.Number, text.OneLine(is.Title), clip(is.Body, MaxIssueText)})
	}
	return prompts.Render("describe.md", map[string]any{
		"Number": rc.PR.Number, "Title": rc.PR.Title, "Author": rc.PR.Author, "Body": body,
		"Commits": commits, "FileSummary": rc.FileSummary(), "Files": rc.FileList(), "Diff": rc.Diff,
		"Issues": issues, "Diagram": in.Diagram,
	})
}

const system = "You are gh-ocdx, describing a pull request for its reviewers. You answer with exactly one BEGIN_JSON … END_JSON envelope."

// Run has model write the description of in: one call (and one
// corrective turn for an answer without an envelope), its tokens reserved
// first when reserve is set. The envelope comes back checked (Check).
func Run(ctx context.Context, model llm.Model, reserve func(string, *llm.Agent) error, in Input) (Description, tokens.Usage, error) {
	task, err := Task(in)
	if err != nil {
		return Description{}, tokens.Usage{}, err
	}
	agent := &llm.Agent{Role: "describe", Model: model, System: system, Task: task, MaxIters: 1}
	if reserve != nil {
		if err := reserve("the description", agent); err != nil {
			return Description{}, tokens.Usage{}, err
		}
	}
	var env Envelope
	res, err := agent.Run(ctx, &env)
	if err != nil {
		return Description{}, res.Usage, err
	}
	return Check(env, in), res.Usage, nil
}

// Description is a checked envelope: only what the PR and its issues
// bear out.
type Description struct {
	Summary     string       `json:"summary"`
	Walkthrough []Group      `json:"walkthrough"`
	Issues      []IssueCheck `json:"issues"`
	Diagram     string       `json:"diagram,omitempty"`
	// Dropped says what of the model's answer was left out, and why.
	Dropped []string `json:"dropped"`
}

// Check keeps of env what the context bears out: files the PR changes,
// the linked issues, requirements whose text the issue states (never
// invented), lines cited on changed files, a diagram only when asked for
// and when it is one. What it drops it says in Dropped.
func Check(env Envelope, in Input) Description {
	d := Description{Summary: redact.Secrets(strings.TrimSpace(env.Summary)), Walkthrough: []Group{}, Issues: []IssueCheck{}, Dropped: []string{}}
	changed := changedFiles(in.Review)
	for _, g := range env.Walkthrough {
		var files []string
		for _, f := range g.Files {
			switch {
			case !changed[f]:
				d.Dropped = append(d.Dropped, fmt.Sprintf("walkthrough: %q is not a file this PR changes", f))
			case !slices.Contains(files, f):
				files = append(files, f)
			}
		}
		if len(files) > 0 {
			d.Walkthrough = append(d.Walkthrough, Group{Purpose: redact.Secrets(text.OneLine(g.Purpose)), Files: files})
		}
	}
	issues := map[int]github.Issue{}
	for _, is := range in.Issues {
		issues[is.Number] = is
	}
	seen := map[int]bool{}
	for _, ic := range env.Issues {
		is, ok := issues[ic.Number]
		if !ok || seen[ic.Number] {
			d.Dropped = append(d.Dropped, fmt.Sprintf("issue #%d is not linked to this PR (or was answered twice)", ic.Number))
			continue
		}
		seen[ic.Number] = true
		source := words(is.Title + "\n" + is.Body)
		out := IssueCheck{Number: is.Number, Title: text.OneLine(is.Title), Requirements: []Requirement{}}
		for _, r := range ic.Requirements {
			w := words(r.Text)
			if len(w) < 3 || !strings.Contains(" "+source+" ", " "+w+" ") {
				d.Dropped = append(d.Dropped, fmt.Sprintf("issue #%d: %q is not in the issue's text", is.Number, text.Clip(text.OneLine(r.Text), 80)))
				continue
			}
			r.Text = redact.Secrets(text.OneLine(r.Text))
			var lines []string
			for _, l := range r.Lines {
				if cited(l, changed) {
					lines = append(lines, l)
				} else {
					d.Dropped = append(d.Dropped, fmt.Sprintf("issue #%d: the citation %q is not a line of a changed file", is.Number, text.Clip(l, 80)))
				}
			}
			r.Lines = lines
			if r.Status == Met && len(lines) == 0 {
				r.Status = Unclear // a requirement met nowhere the diff shows
			}
			out.Requirements = append(out.Requirements, r)
		}
		d.Issues = append(d.Issues, out)
	}
	for _, is := range in.Issues { // every linked issue is answered for
		if !seen[is.Number] {
			d.Issues = append(d.Issues, IssueCheck{Number: is.Number, Title: text.OneLine(is.Title), Requirements: []Requirement{}})
			d.Dropped = append(d.Dropped, fmt.Sprintf("issue #%d: the model checked none of its requirements", is.Number))
		}
	}
	if dg := strings.TrimSpace(env.Diagram); dg != "" {
		switch {
		case !in.Diagram:
			d.Dropped = append(d.Dropped, "diagram: not asked for")
		case !isMermaid(dg) || posts.CarriesMarkup(dg) || len(dg) > MaxDiagram:
			d.Dropped = append(d.Dropped, "diagram: not a Mermaid sequence or flow diagram of at most 4KB")
		default:
			d.Diagram = redact.Secrets(dg)
		}
	}
	return d
}

// changedFiles are the paths of the PR's files and of its diff as given.
func changedFiles(rc *change.Context) map[string]bool {
	m := map[string]bool{}
	for _, f := range rc.PR.Files {
		m[f.Path] = true
	}
	files, _ := diff.Parse([]byte(rc.Diff)) // bytes cannot fail to read
	for _, f := range files {
		m[f.Path()] = true
	}
	return m
}

// cited reports whether l is path:line or path:start-end on a changed file.
func cited(l string, changed map[string]bool) bool {
	i := strings.LastIndexByte(l, ':')
	if i <= 0 || !changed[l[:i]] {
		return false
	}
	from, to, isRange := strings.Cut(l[i+1:], "-")
	a, err := strconv.Atoi(from)
	if err != nil || a <= 0 {
		return false
	}
	if isRange {
		b, err := strconv.Atoi(to)
		return err == nil && b >= a
	}
	return true
}

// words is s lower-cased with every run of what is not a letter or a digit
// one space: a requirement counts as the issue's when its words appear
// there in order, whatever the punctuation, case or line breaks.
func words(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// isMermaid reports whether s opens as a Mermaid sequence or flow diagram.
func isMermaid(s string) bool {
	f := strings.Fields(s)
	return len(f) > 0 && slices.Contains([]string{"sequenceDiagram", "flowchart", "graph"}, f[0])
}

// clip cuts s to n bytes, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return text.Clip(s, n) + "\n[cut]"
}

// FileLink is the URL of path's diff on the PR's files page: GitHub
// anchors each file by the SHA-256 of its path.
func FileLink(prURL, path string) string {
	sum := sha256.Sum256([]byte(path))
	return prURL + "/files#diff-" + hex.EncodeToString(sum[:])
}

// Markdown renders d for pr: the terminal's, the post's and the body's
// text. Every word of the model and of the PR is inert (text.InertMarkup):
// it makes no hidden comment, tag, suggestion or /ocdx command line; a
// secret is [REDACTED], a diff block [DIFF REDACTED] (redact.ForComment).
func Markdown(d Description, pr *github.PullRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### What PR #%d does\n\n%s\n\n", pr.Number, text.InertMarkup(text.Clip(d.Summary, MaxSummary)))
	b.WriteString("### Walkthrough\n\n")
	for _, g := range d.Walkthrough {
		var links []string
		for _, f := range g.Files {
			links = append(links, fmt.Sprintf("[%s](%s)", text.CodeSpan(f), FileLink(pr.URL, f)))
		}
		fmt.Fprintf(&b, "- **%s**: %s\n", text.InertMarkup(escapeEmphasis(text.Clip(g.Purpose, 300))), strings.Join(links, ", "))
	}
	for _, ic := range d.Issues {
		fmt.Fprintf(&b, "\n### Issue #%d: %s\n\n", ic.Number, text.InertMarkup(text.Clip(ic.Title, 200)))
		if len(ic.Requirements) == 0 {
			b.WriteString("No requirement of the issue could be checked.\n")
		}
		for _, r := range ic.Requirements {
			fmt.Fprintf(&b, "- %s %s: %s", statusMark[r.Status], r.Status, text.InertMarkup(text.Clip(r.Text, 300)))
			var cs []string
			for _, l := range r.Lines {
				cs = append(cs, text.CodeSpan(l))
			}
			if len(cs) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(cs, ", "))
			}
			b.WriteString("\n")
		}
	}
	if d.Diagram != "" {
		fmt.Fprintf(&b, "\n### Diagram\n\n%s\n", text.Fenced("mermaid", text.InertMarkup(d.Diagram)))
	}
	return redact.ForComment(text.Inert(b.String()))
}

var statusMark = map[string]string{Met: "✅", NotMet: "❌", Unclear: "❔"}

// escapeEmphasis keeps a purpose from closing the bold it is set in.
func escapeEmphasis(s string) string { return strings.ReplaceAll(s, "*", `\*`) }

// Comment is the description as gh-ocdx's comment on the PR: its marker
// and DescriptionTag, then the description and a footer.
func Comment(md, head, footer string) string {
	return posts.Marker + "\n" + posts.DescriptionTag(head) + "\n" + md + "\n" + footer + "\n"
}

// FindOwn is the id of gh-ocdx's description comment among comments
// (authored by a login own accepts: a copy by anyone else is theirs); 0
// when there is none.
func FindOwn(comments []github.Comment, own func(author string) bool) int64 {
	for _, c := range comments {
		if own(c.Author) && strings.Contains(c.Body, posts.Marker) && posts.IsDescription(c.Body) {
			return c.ID
		}
	}
	return 0
}

// EditBody is body with block between gh-ocdx's markers: the block of a
// previous run replaced, else added after the author's text. What lies
// outside the markers is kept byte for byte.
func EditBody(body, block string) string {
	wrapped := posts.BodyStart + "\n" + block + "\n" + posts.BodyEnd
	if i, j, ok := posts.DescriptionBlock(body); ok {
		return body[:i] + wrapped + body[j:]
	}
	if strings.TrimSpace(body) == "" {
		return wrapped
	}
	return body + "\n\n" + wrapped
}

// Findings are the requirements of d's linked issues the PR does not meet,
// as P2 findings of the first report, when the configuration makes them
// findings ("describe": {"compliance": "finding"}; docs/architecture.md,
// Describe). Each names its issue and, when the description cited one,
// the changed line it is about; model is the describe model.
func Findings(d Description, model string) []finding.Finding {
	var out []finding.Finding
	for _, ic := range d.Issues {
		for _, r := range ic.Requirements {
			if r.Status != NotMet {
				continue
			}
			f := finding.Finding{Priority: "P2", Category: "quality",
				Title:       clip(fmt.Sprintf("Issue #%d asks for what this PR does not do: %s", ic.Number, r.Text), 160),
				Description: fmt.Sprintf("Issue #%d (%s) states: %q. The PR's description found it not met by the change.", ic.Number, ic.Title, r.Text),
				Suggestion:  "Meet the requirement in this pull request, or say in the thread why it does not apply, and dismiss this finding.",
				Agreement:   "-", Reviewers: []string{model},
				Source: &finding.Source{Type: "agent", Name: "describe"}}
			if len(r.Lines) > 0 { // path:line or path:start-end, checked by cited
				l := r.Lines[0]
				i := strings.LastIndexByte(l, ':')
				start, _, _ := strings.Cut(l[i+1:], "-")
				if n, err := strconv.Atoi(start); err == nil && n > 0 {
					f.File, f.Line = l[:i], &n
				}
			}
			f.ID = f.ComputeID()
			out = append(out, f)
		}
	}
	return out
}
