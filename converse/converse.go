// Package converse answers people in gh-ocdx's own review threads
// (docs/architecture.md, Conversation): which replies are due an answer,
// what the model is asked, and the answer as it is posted. It reads and
// answers; it never writes code, pushes, resolves or dismisses.
package converse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

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

// Due is one of gh-ocdx's threads whose newest replies, by people, came
// after its last comment there and are not answered yet.
type Due struct {
	Thread  posts.OwnThread
	Replies []github.ThreadComment // to answer, oldest first
	All     []github.ThreadComment // the whole thread, oldest first
	// Status is the finding's status in the PR's newest trusted ledger,
	// which the caller reads: a fixed or resolved finding is never
	// conceded (Check).
	Status finding.Status
}

// Authors are the logins of d's replies, each once.
func (d Due) Authors() []string {
	var out []string
	for _, c := range d.Replies {
		if !slices.Contains(out, c.Author) {
			out = append(out, c.Author)
		}
	}
	return out
}

// Mentions are the replies' authors as @mentions, parted by spaces.
func (d Due) Mentions() string {
	var out []string
	for _, l := range d.Authors() {
		out = append(out, "@"+l)
	}
	return strings.Join(out, " ")
}

// Where is the thread's file:line.
func (d Due) Where() string {
	f := d.Thread.Finding
	if f.Line != nil {
		return fmt.Sprintf("%s:%d", f.File, *f.Line)
	}
	return f.File
}

// DueReplies are the threads of pr (Judged: whose posts are gh-ocdx's)
// with replies to answer, in the PR's order: in each of gh-ocdx's
// threads, the replies people wrote after gh-ocdx's last comment there,
// leaving out what an answer already names (a re-run answers nothing
// twice), /ocdx commands (the loop acts on those) and other bots.
func DueReplies(pr *github.PullRequest) []Due {
	own := map[string]posts.OwnThread{}
	for _, t := range posts.OwnThreads(pr) {
		own[t.ID] = t
	}
	var out []Due
	for _, th := range pr.Threads {
		t, ok := own[th.ID]
		if !ok || th.ID == "" {
			continue
		}
		last := 0
		answered := map[string]bool{}
		for i, c := range th.Comments {
			if posts.Own(pr, c.Body, c.Author) {
				last = i
				for _, r := range th.Comments[:i] {
					if strings.Contains(c.Body, posts.AnswerTag(r.Key())) {
						answered[r.Key()] = true
					}
				}
			}
		}
		d := Due{Thread: t, All: th.Comments}
		for _, c := range th.Comments[last+1:] {
			if answered[c.Key()] || isCommand(c.Body) || strings.HasSuffix(c.Author, "[bot]") || strings.TrimSpace(c.Body) == "" {
				continue
			}
			d.Replies = append(d.Replies, c)
		}
		if len(d.Replies) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// isCommand reports whether body is an /ocdx command, which the loop or
// the command verb acts on, not a conversation.
func isCommand(body string) bool {
	_, ok := posts.ParseCommand(body)
	return ok
}

// Kinds of answer.
const (
	Explain = "explain" // the finding stands, and why
	Concede = "concede" // it was wrong or is intended: disputed
	Propose = "propose" // a change of the anchored line, as a suggestion
)

// Envelope is the model's answer.
type Envelope struct {
	Agent       string   `json:"agent" envelope:"optional"`
	Kind        string   `json:"kind"`
	Answer      string   `json:"answer"`
	Lines       []string `json:"lines,omitempty"`
	Replacement *string  `json:"replacement,omitempty"`
}

// Validate checks the kind and that there is an answer.
func (e *Envelope) Validate() error {
	switch e.Kind {
	case Explain, Concede, Propose:
	default:
		return fmt.Errorf("kind %q: want explain, concede or propose", e.Kind)
	}
	if strings.TrimSpace(e.Answer) == "" {
		return errors.New("answer is empty")
	}
	return nil
}

// Answer is what gh-ocdx posts in a thread: the model's words (or the
// person's edit of them), the lines it read, and what it does.
type Answer struct {
	Kind        string
	Text        string
	Lines       []string
	Replacement *string // checked against the diff (Check)
	// Note says what gh-ocdx changed of the model's answer: a concession
	// it does not make, a suggestion it does not post.
	Note  string
	Usage tokens.Usage
	Cost  float64 // dollars; 0 when the model has no price
}

// Bounds on what an answer carries.
const (
	maxAnswer    = 3000
	maxLines     = 10
	maxLine      = 300
	maxReplyText = 2000
	maxThread    = 20
)

// Asker is the model and its read tools, for one reply run.
type Asker struct {
	Model    llm.Model
	Tools    []llm.Tool
	MaxIters int
	// Reserve, when set, reserves the answer's tokens before its first
	// call (llm.Budget.Reserve): a reply that does not fit is not started.
	Reserve func(what string, a *llm.Agent) error
}

const system = "You are gh-ocdx, a code reviewer, answering a person who replied to one of your review comments. You answer with exactly one BEGIN_JSON … END_JSON envelope."

// Ask asks the model to answer d. anchored are the lines the thread is on,
// as read at the PR's head ("" when they could not be read).
func (a Asker) Ask(ctx context.Context, pr *github.PullRequest, d Due, anchored string) (Answer, error) {
	task, err := Task(pr, d, anchored)
	if err != nil {
		return Answer{}, err
	}
	var env Envelope
	ans, err := a.run(ctx, "reply", system, task, "the answer in "+d.Where(), &env)
	if err != nil {
		return ans, err
	}
	ans.Kind, ans.Text, ans.Lines, ans.Replacement = env.Kind, env.Answer, env.Lines, env.Replacement
	return ans, nil
}

// run has the model, as role, do task with a's tools, its tokens reserved
// for what first, and decodes its envelope into env: an Answer of the
// usage alone, which the caller fills from env.
func (a Asker) run(ctx context.Context, role, system, task, what string, env any) (Answer, error) {
	agent := &llm.Agent{Role: role, Model: a.Model, System: system, Task: task, Tools: a.Tools, MaxIters: a.MaxIters}
	if a.Reserve != nil {
		if err := a.Reserve(what, agent); err != nil {
			return Answer{}, err
		}
	}
	res, err := agent.Run(ctx, env)
	return Answer{Usage: res.Usage}, err
}

// linesRead is the block listing the lines an answer read, or "".
func linesRead(a Answer) string {
	if ls := readLines(a.Lines); ls != "" {
		return "<details><summary>Lines read</summary>\n\n" + ls + "\n</details>\n\n"
	}
	return ""
}

// footer is an answer's last line: the verb that answered, what it cost.
func footer(verb string, a Answer, prices bool, more string) string {
	cost := a.Usage.String() + " tokens"
	if prices && a.Cost > 0 {
		cost += " · " + tokens.Dollars(a.Cost)
	}
	return fmt.Sprintf("<sub>gh-ocdx %s · %s%s</sub>", verb, cost, more)
}

// Task is the model's task for d.
func Task(pr *github.PullRequest, d Due, anchored string) (string, error) {
	f := d.Thread.Finding
	type findingView struct {
		ID       string `json:"id"`
		Priority string `json:"priority,omitempty"`
		Category string `json:"category,omitempty"`
		File     string `json:"file"`
		Line     *int   `json:"line"`
		Title    string `json:"title"`
		Comment  string `json:"comment"`
	}
	first := ""
	if len(d.All) > 0 {
		first = text.Excerpt(d.All[0].Body, maxReplyText)
	}
	fb, err := json.MarshalIndent(findingView{ID: f.ID, Priority: d.Thread.Priority, Category: f.Category, File: f.File, Line: f.Line, Title: f.Title, Comment: first}, "", "  ")
	if err != nil {
		return "", err
	}
	type commentView struct {
		Author string `json:"author"`
		Body   string `json:"body"`
		ToDo   bool   `json:"toAnswer,omitempty"`
	}
	var thread []commentView
	all := d.All
	if len(all) > maxThread {
		all = append(all[:1:1], all[len(all)-maxThread+1:]...)
	}
	for _, c := range all {
		todo := slices.ContainsFunc(d.Replies, func(r github.ThreadComment) bool { return r.Key() == c.Key() })
		thread = append(thread, commentView{Author: c.Author, Body: text.Excerpt(c.Body, maxReplyText), ToDo: todo})
	}
	tb, err := json.MarshalIndent(thread, "", "  ")
	if err != nil {
		return "", err
	}
	line := 0
	if f.Line != nil {
		line = *f.Line
	}
	if strings.TrimSpace(anchored) == "" {
		anchored = "(not readable: read them with read_file)"
	}
	return prompts.Render("reply.md", map[string]any{
		"Number": pr.Number, "Title": pr.Title, "URL": pr.URL, "Head": text.ShortOID(pr.HeadRefOid),
		"File": f.File, "Line": line, "Finding": string(fb), "Anchored": "```\n" + anchored + "\n```", "Thread": string(tb),
	})
}

// Check makes a's kind one gh-ocdx stands by: a concession of a P0 or a
// SEC- finding is posted as an explanation (a conversation never clears a
// blocker), as is one of a finding already fixed or resolved (conceding
// it would make it disputed, and block again), and a proposal whose line is not on the PR's side of the diff
// (lines), or without a replacement, is posted without a suggestion.
func Check(a Answer, d Due, lines diff.Lines) Answer {
	f := d.Thread.Finding
	switch a.Kind {
	case Concede:
		switch {
		case d.Status == finding.StatusFixed || d.Status == finding.StatusResolved:
			a.Kind = Explain
			a.Note = fmt.Sprintf("`%s` is already %s on this PR: there is nothing left to concede, and it does not block.", f.ID, d.Status)
		case !d.Thread.Concedable():
			a.Kind = Explain
			a.Note = "gh-ocdx does not concede a P0 or SEC- finding in a conversation: it keeps blocking until someone with write permission dismisses it (`/ocdx dismiss`)."
		}
	case Propose:
		// A suggestion's text is posted as the model wrote it, inside a
		// fence: none may carry gh-ocdx's hidden comments or tags.
		ok := a.Replacement != nil && f.Line != nil && !posts.CarriesMarkup(*a.Replacement)
		if ok {
			side, anchored := lines.Anchor(f.File, 0, *f.Line, diff.Right)
			ok = anchored && side == diff.Right
		}
		if !ok {
			why := "the thread's line is not one this PR's version changes"
			switch {
			case a.Replacement == nil:
				why = "it came without the lines' new text"
			case posts.CarriesMarkup(*a.Replacement):
				why = "its text holds an HTML comment, a gh-ocdx tag or an /ocdx line"
			}
			a.Kind, a.Replacement = Explain, nil
			a.Note = "The proposed change is not shown as a suggestion: " + why + "."
		}
	default:
		a.Replacement = nil
	}
	return a
}

// Body is a's comment in d's thread: the marker, a tag per reply it
// answers (and, for a concession, ConcededTag), the answer, the lines it
// read, the suggestion (Check'ed; only gh-ocdx renders one), and what it
// cost. It is sanitised as every post is: the model's and the person's
// words cannot add markup, and secrets are masked.
func Body(a Answer, d Due, prices bool) string {
	var b strings.Builder
	b.WriteString(posts.Marker + "\n")
	for _, r := range d.Replies {
		b.WriteString(posts.AnswerTag(r.Key()) + "\n")
	}
	if a.Kind == Concede {
		b.WriteString(posts.ConcededTag(d.Thread.Finding.ID) + "\n")
	}
	var at []string
	for _, who := range d.Authors() {
		at = append(at, "@"+who)
	}
	fmt.Fprintf(&b, "%s %s\n\n", strings.Join(at, " "), text.InertMarkup(text.Excerpt(a.Text, maxAnswer)))
	if a.Note != "" {
		fmt.Fprintf(&b, "_%s_\n\n", a.Note)
	}
	if a.Kind == Concede {
		fmt.Fprintf(&b, "_gh-ocdx marks `%s` disputed: it keeps blocking until someone with write permission dismisses it (`/ocdx dismiss`)._\n\n", d.Thread.Finding.ID)
	}
	b.WriteString(linesRead(a))
	if a.Kind == Propose && a.Replacement != nil {
		b.WriteString(finding.SuggestionBlock(*a.Replacement) + "\n\n")
	}
	b.WriteString(footer("reply", a, prices, ""))
	return redact.ForComment(b.String())
}

// readLines are the lines the model says it read, in a fence no line can
// close, each capped, markup inert.
func readLines(ls []string) string {
	var keep []string
	for _, l := range ls {
		if l = strings.TrimSpace(text.OneLine(l)); l != "" && len(keep) < maxLines {
			keep = append(keep, text.InertMarkup(text.Excerpt(l, maxLine)))
		}
	}
	if len(keep) == 0 {
		return ""
	}
	return text.Fenced("text", strings.Join(keep, "\n"))
}
