package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/prompter"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/reviewpr"
)

// terminalConfirmer asks the user at Orient and Decide.
type terminalConfirmer struct {
	d *cmdutil.Deps
	p cmdutil.Prompter
}

func (c *terminalConfirmer) Orient(_ context.Context, proposal string) (reviewpr.OrientReply, error) {
	fmt.Fprintf(c.d.IO.Out, "\nThe reviewer asks for more context:\n%s\n\n", cmdutil.Indent(proposal))
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

// Decide shows the proposed review as it will be posted (the body, each
// inline comment at its path:line, a suggestion as a diff) and asks what
// to do with it: post it, edit it in the person's editor (body and inline
// comments; then asked again, the edit shown), post it as another event,
// discuss it with the reviewer, or abort.
func (c *terminalConfirmer) Decide(ctx context.Context, p reviewpr.Proposal) (reviewpr.DecideReply, error) {
	title := "Proposed review: " + string(p.Event)
	if p.Proposed != "" {
		title += " (the model proposed " + string(p.Proposed) + ")"
	}
	edited := false
	for {
		fmt.Fprintf(c.d.IO.Out, "\n── %s %s\n", title, strings.Repeat("─", 30))
		if err := cmdutil.PrintMarkdown(c.d, strings.TrimRight(p.Body, "\n")+"\n"); err != nil {
			return reviewpr.DecideReply{}, err
		}
		if err := printInline(c.d, p.Shown()); err != nil {
			return reviewpr.DecideReply{}, err
		}
		fmt.Fprintf(c.d.IO.Out, "%s\n\n", strings.Repeat("─", 50))
		i, err := c.p.Select("Post this review?", []string{"Post as " + string(p.Event), "Edit", "Post as…", "Discuss", "Abort"})
		if err != nil {
			return reviewpr.DecideReply{}, c.keep(p, err)
		}
		switch i {
		case 0:
			return reviewpr.DecideReply{Action: reviewpr.Post, Edited: edited, Body: p.Body, Comments: p.Comments}, nil
		case 1:
			e, ok, err := c.edit(ctx, p)
			if err != nil {
				return reviewpr.DecideReply{}, c.keep(p, err)
			}
			if ok {
				p, edited, title = e, true, "Your edited review: "+string(p.Event)
			}
		case 2:
			labels := make([]string, len(postAs))
			for j, e := range postAs {
				labels[j] = e.label
			}
			j, err := c.p.Select("Post the review as", labels)
			if err != nil {
				return reviewpr.DecideReply{}, c.keep(p, err)
			}
			return reviewpr.DecideReply{Action: reviewpr.Post, Event: postAs[j].event, Edited: edited, Body: p.Body, Comments: p.Comments}, nil
		case 3:
			text, err := c.answer("Your feedback for the reviewer:", "an empty answer tells the reviewer nothing: say what to change, or choose Abort")
			return reviewpr.DecideReply{Action: reviewpr.Discuss, Text: text}, err
		default:
			return reviewpr.DecideReply{Action: reviewpr.Abort}, nil
		}
	}
}

// edit opens the review in the person's editor: the body, then each inline
// comment under its line (reviewpr.Proposal.EditText). An edit that cannot
// be posted (a comment off the diff, or without text) is reopened with the
// reason; an empty one keeps the review as it was (false).
func (c *terminalConfirmer) edit(ctx context.Context, p reviewpr.Proposal) (reviewpr.Proposal, bool, error) {
	text := p.EditText()
	for {
		t, err := c.p.Edit("Edit the review", cmdutil.EditorCommand(ctx, c.d), text)
		var fail *prompter.EditorError
		if errors.As(err, &fail) {
			// The review stays as it was, offered again; the text being
			// edited is kept where the person can take it up by hand.
			fmt.Fprintf(c.d.IO.ErrOut, "X %v\n", err)
			if path := prompter.KeepDraft("review", text); path != "" {
				fmt.Fprintf(c.d.IO.ErrOut, "  The review is kept as it was, and its text saved in %s\n", path)
			}
			return p, false, nil
		}
		if err != nil {
			return p, false, err
		}
		if strings.TrimSpace(t) == "" {
			fmt.Fprintln(c.d.IO.ErrOut, "the edited review is empty: kept the text before the edit")
			return p, false, nil
		}
		e, err := p.Edited(t)
		if err == nil {
			return e, true, nil
		}
		var ee *reviewpr.EditError
		if !errors.As(err, &ee) {
			return p, false, err
		}
		fmt.Fprintf(c.d.IO.ErrOut, "X Your edit cannot be posted:\n")
		for _, why := range ee.Problems {
			fmt.Fprintf(c.d.IO.ErrOut, "  - %s\n", why)
		}
		fmt.Fprintln(c.d.IO.ErrOut, "Edit it again to fix this, or save an empty file to keep the review as it was.")
		text = t
	}
}

// keep saves the proposed review when a prompt failed before it was posted
// (a closed terminal), and says where in the error: the models' work is not
// lost with the terminal. A cancellation is the person's choice: nothing is
// kept.
func (c *terminalConfirmer) keep(p reviewpr.Proposal, err error) error {
	if errors.Is(err, cmdutil.ErrCancelled) {
		return err
	}
	if path := prompter.KeepDraft("review", p.EditText()); path != "" {
		return fmt.Errorf("%w; the proposed review is saved in %s", err, path)
	}
	return err
}

// SentBack tells the person why a review they never saw went back to the
// model: they would otherwise wait on a silent revision.
func (c *terminalConfirmer) SentBack(_ context.Context, problems []string) {
	sentBack(c.d, problems)
}

func sentBack(d *cmdutil.Deps, problems []string) {
	fmt.Fprintf(d.IO.ErrOut, "! The reviewer's proposed review went back to it to revise, unseen: %s.\n", strings.Join(problems, "; "))
}

// autoConfirmer answers for the user with --yes or --print: fetch what the
// reviewer proposes (its tools only read), logged so the user sees what was
// fetched, and accept its review.
type autoConfirmer struct {
	d   *cmdutil.Deps
	why string // the flag that answers for the user
}

func (a autoConfirmer) Orient(_ context.Context, proposal string) (reviewpr.OrientReply, error) {
	a.d.Info("fetching as the reviewer asked (%s): %s", a.why, text.Clip(text.OneLine(proposal), 300))
	return reviewpr.OrientReply{Action: reviewpr.Fetch}, nil
}

func (autoConfirmer) Decide(context.Context, reviewpr.Proposal) (reviewpr.DecideReply, error) {
	return reviewpr.DecideReply{Action: reviewpr.Post}, nil
}

func (a autoConfirmer) SentBack(_ context.Context, problems []string) { sentBack(a.d, problems) }

// printPublisher prints the review on stdout and posts nothing (--print).
type printPublisher struct{ d *cmdutil.Deps }

func (p printPublisher) Publish(_ context.Context, r reviewpr.Proposal) (string, error) {
	fmt.Fprintf(p.d.IO.Out, "Event: %s\n\n", r.Event)
	if err := cmdutil.PrintMarkdown(p.d, strings.TrimRight(r.Body, "\n")+"\n"); err != nil {
		return "", err
	}
	return "", printInline(p.d, r.Shown())
}

// printInline shows a review's inline comments as they will be posted:
// where (path:line), the words as Markdown, a suggestion as a diff of the
// lines it replaces and the lines it would become.
func printInline(d *cmdutil.Deps, cs []reviewpr.Shown) error {
	if len(cs) == 0 {
		return nil
	}
	fmt.Fprintf(d.IO.Out, "\n── %s\n", text.Plural(len(cs), "inline comment"))
	for _, c := range cs {
		fmt.Fprintf(d.IO.Out, "\n%s\n", c.At)
		for _, part := range c.Parts {
			md := part.Text
			if part.Diff != nil {
				md = "Suggested change:\n\n" + text.Fenced("diff", strings.Join(part.Diff, "\n"))
			}
			// The blank line keeps a piped review's Markdown in paragraphs.
			if err := cmdutil.PrintMarkdown(d, "\n"+md+"\n"); err != nil {
				return err
			}
		}
	}
	return nil
}
