package cmd

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/reviewpr"
)

// terminalConfirmer asks the user at Orient and Decide.
type terminalConfirmer struct {
	d *Deps
	p Prompter
}

func (c *terminalConfirmer) Orient(_ context.Context, proposal string) (reviewpr.OrientReply, error) {
	fmt.Fprintf(c.d.IO.Out, "\nThe reviewer asks for more context:\n%s\n\n", indent(proposal))
	i, err := c.p.Select("Context request", []string{"Fetch as proposed", "Narrow it", "Refuse"})
	if err != nil {
		return reviewpr.OrientReply{}, err
	}
	switch i {
	case 1:
		text, err := c.answer("What should it fetch instead?", "an empty answer narrows nothing: name the files, directories or issues it may fetch, or choose Refuse")
		return reviewpr.OrientReply{Action: reviewpr.Narrow, Text: text}, err
	case 2:
		text, err := c.p.Input("Why not?")
		return reviewpr.OrientReply{Action: reviewpr.Refuse, Text: text}, err
	}
	return reviewpr.OrientReply{Action: reviewpr.Fetch}, nil
}

// answer asks msg until the answer says something.
func (c *terminalConfirmer) answer(msg, again string) (string, error) {
	for {
		text, err := c.p.Input(msg)
		if err != nil || strings.TrimSpace(text) != "" {
			return text, err
		}
		fmt.Fprintln(c.d.IO.ErrOut, again)
	}
}

// postAs are the events a person may choose at Decide, as gh pr review
// names them.
var postAs = []struct {
	label string
	event github.ReviewEvent
}{{"Comment", github.CommentOnly}, {"Request changes", github.RequestChanges}, {"Approve", github.Approve}}

// Decide shows the proposed review and asks what to do with it: post it,
// edit it in the person's editor (then asked again, the edit shown), post
// it as another event, discuss it with the reviewer, or abort.
func (c *terminalConfirmer) Decide(ctx context.Context, p reviewpr.Proposal) (reviewpr.DecideReply, error) {
	title := "Proposed review: " + string(p.Event)
	if p.Proposed != "" {
		title += " (the model proposed " + string(p.Proposed) + ")"
	}
	edited := ""
	for {
		body := cmp.Or(edited, p.Body)
		fmt.Fprintf(c.d.IO.Out, "\n── %s %s\n", title, strings.Repeat("─", 30))
		if err := printMarkdown(c.d, body+"\n"); err != nil {
			return reviewpr.DecideReply{}, err
		}
		fmt.Fprintf(c.d.IO.Out, "%s%s\n\n", inlineComments(p.Comments), strings.Repeat("─", 50))
		i, err := c.p.Select("Post this review?", []string{"Post as " + string(p.Event), "Edit", "Post as…", "Discuss", "Abort"})
		if err != nil {
			return reviewpr.DecideReply{}, err
		}
		switch i {
		case 0:
			return reviewpr.DecideReply{Action: reviewpr.Post, Body: edited}, nil
		case 1:
			text, err := c.p.Edit("Edit the review", editorCommand(ctx, c.d), body)
			if err != nil {
				return reviewpr.DecideReply{}, err
			}
			if strings.TrimSpace(text) == "" {
				fmt.Fprintln(c.d.IO.ErrOut, "the edited review is empty: kept the text before the edit")
				continue
			}
			edited, title = strings.TrimRight(text, "\n")+"\n", "Your edited review: "+string(p.Event)
		case 2:
			labels := make([]string, len(postAs))
			for j, e := range postAs {
				labels[j] = e.label
			}
			j, err := c.p.Select("Post the review as", labels)
			if err != nil {
				return reviewpr.DecideReply{}, err
			}
			return reviewpr.DecideReply{Action: reviewpr.Post, Event: postAs[j].event, Body: edited}, nil
		case 3:
			text, err := c.answer("Your feedback for the reviewer:", "an empty answer tells the reviewer nothing: say what to change, or choose Abort")
			return reviewpr.DecideReply{Action: reviewpr.Discuss, Text: text}, err
		default:
			return reviewpr.DecideReply{Action: reviewpr.Abort}, nil
		}
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}

// autoConfirmer answers for the user with --yes or --print: fetch what the
// reviewer proposes (its tools only read), logged so the user sees what was
// fetched, and accept its review.
type autoConfirmer struct {
	d   *Deps
	why string // the flag that answers for the user
}

func (a autoConfirmer) Orient(_ context.Context, proposal string) (reviewpr.OrientReply, error) {
	a.d.info("fetching as the reviewer asked (%s): %s", a.why, text.Clip(text.OneLine(proposal), 300))
	return reviewpr.OrientReply{Action: reviewpr.Fetch}, nil
}

func (autoConfirmer) Decide(context.Context, reviewpr.Proposal) (reviewpr.DecideReply, error) {
	return reviewpr.DecideReply{Action: reviewpr.Post}, nil
}

// postPublisher submits the review on GitHub; review-pr says where.
type postPublisher struct {
	d      *Deps
	gh     *github.Client
	repo   github.Repo
	number int
	runID  string         // for the tag
	head   string         // the PR's head the review read
	ledger finding.Ledger // the PR's newest, carried on (docs/architecture.md, The ledger)
}

// Publish posts the review with the marker and a tag, as every comment
// gh-ocdx posts: review-loop then knows the review as its own and never
// counts it as a maintainer's change request.
func (p *postPublisher) Publish(ctx context.Context, r reviewpr.Proposal) (string, error) {
	// The ledger goes on, marking the head this review read.
	led := p.ledger
	led.Run, led.Kind, led.Round, led.Head, led.Reviewed = p.runID, "review-pr", 1, p.head, p.head
	body := github.CapBodyWith(finding.Marker+"\n"+finding.Tag(p.runID, 1, "review-pr")+"\n"+r.Body, "\n"+led.Block())
	posted, err := p.gh.PostReviewComments(ctx, p.repo, p.number, r.Event, body, r.Comments)
	if err != nil {
		return "", err
	}
	return posted.URL, nil
}

// printPublisher prints the review on stdout and posts nothing (--print).
type printPublisher struct{ d *Deps }

func (p printPublisher) Publish(_ context.Context, r reviewpr.Proposal) (string, error) {
	fmt.Fprintf(p.d.IO.Out, "Event: %s\n\n", r.Event)
	if err := printMarkdown(p.d, strings.TrimRight(r.Body, "\n")+"\n"); err != nil {
		return "", err
	}
	_, err := fmt.Fprint(p.d.IO.Out, inlineComments(r.Comments))
	return "", err
}

// inlineComments shows a review's inline comments: where (path:line), then
// the comment, a suggestion's lines as the lines they would become.
func inlineComments(cs []github.ReviewComment) string {
	var b strings.Builder
	for _, c := range cs {
		at := fmt.Sprintf("%s:%d", c.Path, c.Line)
		if c.StartLine > 0 {
			at = fmt.Sprintf("%s:%d-%d", c.Path, c.StartLine, c.Line)
		}
		body, inSuggestion := []string{}, false
		for _, l := range strings.Split(c.Body, "\n") {
			switch {
			case strings.HasPrefix(l, "```") && strings.HasSuffix(l, "suggestion"):
				inSuggestion = true
				body = append(body, "suggested change:")
			case inSuggestion && strings.HasPrefix(l, "```"):
				inSuggestion = false
			case inSuggestion:
				body = append(body, "+ "+l)
			default:
				body = append(body, l)
			}
		}
		fmt.Fprintf(&b, "\n── %s (%s)\n%s\n", at, c.Side, indent(strings.Join(body, "\n")))
	}
	return b.String()
}
