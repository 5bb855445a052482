package converse

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/prompts"
)

// Post is one line gh-ocdx posts answering a comment: the marker, its tag,
// and the words, sanitised as every post.
func Post(tag, author, words string) string {
	return redact.ForComment(posts.Marker + "\n" + tag + "\n@" + author + ": " + words)
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
	qb, err := json.Marshal(text.Excerpt(question, maxQuestion))
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
	fmt.Fprintf(&b, "%s\n%s\n@%s %s\n\n", posts.Marker, tag, author, text.InertMarkup(text.Excerpt(a.Text, maxAnswer)))
	b.WriteString(linesRead(a))
	b.WriteString(footer("ask", a, prices, " · nothing was changed or pushed"))
	return redact.ForComment(b.String())
}
