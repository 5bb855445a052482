package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/review"
)

// terminalConfirmer asks the user at Orient and Decide.
type terminalConfirmer struct {
	d *Deps
	p Prompter
}

func (c *terminalConfirmer) Orient(_ context.Context, proposal string) (review.OrientReply, error) {
	fmt.Fprintf(c.d.IO.Out, "\nThe reviewer asks for more context:\n%s\n\n", indent(proposal))
	i, err := c.p.Select("Context request", []string{"Fetch as proposed", "Narrow it", "Refuse"})
	if err != nil {
		return review.OrientReply{}, err
	}
	switch i {
	case 1:
		text, err := c.p.Input("What should it fetch instead?")
		return review.OrientReply{Action: review.Narrow, Text: text}, err
	case 2:
		text, err := c.p.Input("Why not?")
		return review.OrientReply{Action: review.Refuse, Text: text}, err
	}
	return review.OrientReply{Action: review.Fetch}, nil
}

func (c *terminalConfirmer) Decide(_ context.Context, p review.Proposal) (review.DecideReply, error) {
	fmt.Fprintf(c.d.IO.Out, "\n── Proposed review: %s %s\n%s\n%s\n\n", p.Event, strings.Repeat("─", 30), p.Body, strings.Repeat("─", 50))
	i, err := c.p.Select("Post this review?", []string{"Post", "Discuss", "Abort"})
	if err != nil {
		return review.DecideReply{}, err
	}
	switch i {
	case 1:
		text, err := c.p.Input("Your feedback for the reviewer:")
		return review.DecideReply{Action: review.Discuss, Text: text}, err
	case 2:
		return review.DecideReply{Action: review.Abort}, nil
	}
	return review.DecideReply{Action: review.Post}, nil
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}

// autoConfirmer answers for the user with --yes or --print: fetch what the
// reviewer proposes (its tools only read), and accept its review.
type autoConfirmer struct{}

func (autoConfirmer) Orient(context.Context, string) (review.OrientReply, error) {
	return review.OrientReply{Action: review.Fetch}, nil
}

func (autoConfirmer) Decide(context.Context, review.Proposal) (review.DecideReply, error) {
	return review.DecideReply{Action: review.Post}, nil
}

// postPublisher submits the review on GitHub and prints its URL.
type postPublisher struct {
	d      *Deps
	gh     *github.Client
	repo   github.Repo
	number int
}

func (p *postPublisher) Publish(ctx context.Context, r review.Proposal) (string, error) {
	posted, err := p.gh.PostReview(ctx, p.repo, p.number, r.Event, r.Body)
	if err != nil {
		return "", err
	}
	fmt.Fprintln(p.d.IO.Out, posted.URL)
	return posted.URL, nil
}

// printPublisher prints the review on stdout and posts nothing (--print).
type printPublisher struct{ d *Deps }

func (p printPublisher) Publish(_ context.Context, r review.Proposal) (string, error) {
	fmt.Fprintf(p.d.IO.Out, "Event: %s\n\n%s\n", r.Event, strings.TrimRight(r.Body, "\n"))
	return "", nil
}
