package converse

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/prompts"
)

// The /ocdx commands people write in a PR's comments (docs/architecture.md,
// Commands). Only their verb and IDs are read: nothing else a comment says
// runs.
const (
	CmdReview  = "review"
	CmdFix     = "fix"
	CmdAsk     = "ask"
	CmdDismiss = "dismiss"
	CmdRestore = "restore"
)

// Verbs are the commands gh-ocdx knows.
var Verbs = []string{CmdReview, CmdFix, CmdAsk, CmdDismiss, CmdRestore}

// Command is an /ocdx command read from a comment.
type Command struct {
	Verb     string   // one of Verbs, or what the comment named
	Question string   // ask: the rest of the comment
	IDs      []string // dismiss, restore: the finding IDs on its first line
}

// Known reports whether c's verb is one gh-ocdx knows.
func (c Command) Known() bool { return slices.Contains(Verbs, c.Verb) }

// ParseCommand reads a comment that starts with "/ocdx".
func ParseCommand(body string) (Command, bool) {
	s := strings.TrimSpace(body)
	rest, ok := strings.CutPrefix(s, "/ocdx")
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n' && rest[0] != '\r' {
		return Command{}, false
	}
	first, more, _ := strings.Cut(rest, "\n")
	fields := strings.Fields(first)
	if len(fields) == 0 {
		return Command{Verb: ""}, true
	}
	c := Command{Verb: strings.ToLower(fields[0])}
	switch c.Verb {
	case CmdAsk:
		q := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(first), fields[0]))
		c.Question = strings.TrimSpace(q + "\n" + more)
	case CmdDismiss, CmdRestore:
		for _, f := range fields[1:] {
			if finding.ValidLedgerID(f) && !slices.Contains(c.IDs, f) {
				c.IDs = append(c.IDs, f)
			}
		}
	}
	return c, true
}

// Post is one line gh-ocdx posts answering a comment: the marker, its tag,
// and the words, sanitised as every post.
func Post(tag, author, words string) string {
	return redact.ForComment(finding.Marker + "\n" + tag + "\n@" + author + ": " + words)
}

// askEnvelope is the model's answer to a question.
type askEnvelope struct {
	Agent  string   `json:"agent" envelope:"optional"`
	Answer string   `json:"answer"`
	Lines  []string `json:"lines,omitempty"`
}

const askSystem = "You are gh-ocdx, a code reviewer, answering a question about a pull request. You answer with exactly one BEGIN_JSON … END_JSON envelope."

// maxQuestion bounds the question the model is given.
const maxQuestion = 4000

// AskQuestion asks the model question about pr, with its read tools only.
func (a Asker) AskQuestion(ctx context.Context, pr *github.PullRequest, question string) (Answer, error) {
	files := make([]string, 0, len(pr.Files))
	for _, f := range pr.Files {
		files = append(files, f.Path)
	}
	qb, err := json.Marshal(excerpt(question, maxQuestion))
	if err != nil {
		return Answer{}, err
	}
	fb, err := json.Marshal(files)
	if err != nil {
		return Answer{}, err
	}
	task, err := prompts.Render("ask.md", map[string]any{
		"Number": pr.Number, "Title": pr.Title, "URL": pr.URL, "Head": text.ShortOID(pr.HeadRefOid), "Files": string(fb), "Question": string(qb),
	})
	if err != nil {
		return Answer{}, err
	}
	var env askEnvelope
	ans, err := a.run(ctx, "ask", askSystem, task, "the answer", &env)
	ans.Kind = Explain
	if err != nil {
		return ans, err
	}
	if strings.TrimSpace(env.Answer) == "" {
		return ans, fmt.Errorf("ask: the model's answer is empty")
	}
	ans.Text, ans.Lines = env.Answer, env.Lines
	return ans, nil
}

// AnswerBody is the comment answering author's question: the marker, tag,
// the answer with the lines read, and its cost; sanitised as every post.
func AnswerBody(tag, author string, a Answer, prices bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n@%s %s\n\n", finding.Marker, tag, author, text.InertMarkup(excerpt(a.Text, maxAnswer)))
	b.WriteString(linesRead(a))
	b.WriteString(footer("ask", a, prices, " · nothing was changed or pushed"))
	return redact.ForComment(b.String())
}
