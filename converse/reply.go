package converse

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
)

// The reply flow (gh ocdx reply, and gh ocdx command for a reply in a
// thread): which threads are answered, then each answer asked, checked,
// decided and posted. The verb wires flags, models and the terminal to it.

// Select are the threads of pr (Judged by trust) with replies due an
// answer, each with its finding's status in the PR's newest trusted ledger
// (a fixed or resolved finding is never conceded: Check). thread, when set,
// keeps only that review thread, and of it only gh-ocdx's own comments and
// those of people who may run /ocdx commands (posts.MayCommand): the
// Action's run for one reply answers nobody else's words. skipped says
// each reply so left out.
func Select(ctx context.Context, trust *posts.Trust, repo github.Repo, pr *github.PullRequest, thread string, skipped func(login, id string)) ([]Due, error) {
	dues := DueReplies(pr)
	if thread != "" {
		dues = slices.DeleteFunc(dues, func(due Due) bool { return due.Thread.ID != thread })
		var err error
		if dues, err = byWriters(ctx, trust, repo, pr, dues, skipped); err != nil {
			return nil, err
		}
	}
	if len(dues) > 0 {
		led, _, _, _ := trust.Ledger(ctx, pr)
		for i := range dues {
			dues[i].Status = led.StatusOf(dues[i].Thread.Finding.ID)
		}
	}
	return dues, nil
}

// byWriters keeps, of each thread, gh-ocdx's own comments and those of
// people who may run /ocdx commands; a thread left without a reply to
// answer is dropped. Others' replies are neither answered nor shown to the
// model.
func byWriters(ctx context.Context, trust *posts.Trust, repo github.Repo, pr *github.PullRequest, dues []Due, skipped func(login, id string)) ([]Due, error) {
	may := func(c github.ThreadComment) (bool, error) {
		if posts.Own(pr, c.Body, c.Author) {
			return true, nil
		}
		perm, err := trust.Permission(ctx, c.Author)
		if err != nil {
			return false, fmt.Errorf("could not check whether %s may run /ocdx commands on %s: %w; nothing was answered", c.Author, repo, err)
		}
		ok, _ := posts.MayCommand(repo, perm, c.Author)
		return ok, nil
	}
	var out []Due
	for _, due := range dues {
		var err error
		keep := func(cs []github.ThreadComment) []github.ThreadComment {
			return slices.DeleteFunc(slices.Clone(cs), func(c github.ThreadComment) bool {
				ok, perr := may(c)
				err = cmp.Or(err, perr)
				if perr == nil && !ok {
					skipped(c.Author, due.Thread.Finding.ID)
				}
				return !ok
			})
		}
		due.Replies = keep(due.Replies)
		due.All = slices.DeleteFunc(slices.Clone(due.All), func(c github.ThreadComment) bool { ok, _ := may(c); return !ok })
		if err != nil {
			return nil, err
		}
		if len(due.Replies) > 0 {
			out = append(out, due)
		}
	}
	return out, nil
}

// Poster posts an answer in its thread; *github.Client is one.
type Poster interface {
	ResolveThreads(ctx context.Context, repo github.Repo, replies []github.ThreadReply) error
}

// Replier answers the threads due on one PR.
type Replier struct {
	GitHub Poster
	Repo   github.Repo
	PR     *github.PullRequest
	Asker  Asker
	Lines  diff.Lines // the PR's diff: a proposal only on a line it changes (Check)
	// Files are the PR's files at its head: the lines a thread is on are
	// read there.
	Files Files
	// Cost is an answer's estimated cost; priced is false without a price.
	Cost func(tokens.Usage) (usd float64, priced bool)
	// Decide shows an answer as it will be posted and says whether to post
	// it, and its words after an edit; nil posts every answer.
	Decide func(ctx context.Context, due Due, a Answer) (post bool, out Answer, err error)
	// Conceded records that gh-ocdx conceded a finding (then disputed).
	Conceded func(id string)
	// Say reports each step: a thread answered (ok), skipped or failed.
	Say Say
}

// Files are where a thread's lines are read (change.Files).
type Files interface {
	ReadFile(path string, start, end int) (string, error)
}

// anchored are the lines due's thread is on and a few around them, at
// the PR's head; "" when they cannot be read.
func anchored(files Files, due Due) string {
	f := due.Thread.Finding
	if f.Line == nil || f.File == "" {
		return ""
	}
	s, err := files.ReadFile(f.File, max(1, *f.Line-5), *f.Line+5)
	if err != nil {
		return ""
	}
	return s
}

// Did says what an answer did beyond answering, after a line saying it
// answered.
func (a Answer) Did(due Due) string {
	switch a.Kind {
	case Concede:
		return fmt.Sprintf(": conceded, %s is disputed until someone dismisses it", due.Thread.Finding.ID)
	case Propose:
		return ": proposed a change"
	}
	return ""
}

// Say is how a reply run reports as it goes.
type Say struct {
	Answered func(due Due, a Answer)
	Skipped  func(due Due)
	Failed   func(due Due, err error)
	Budget   func(due Due, err error) // the budget stopped the run before due
}

// Thread is one thread of a reply run, as reply --json lists it.
type Thread struct {
	Finding string   `json:"finding"`
	Where   string   `json:"where"`
	URL     string   `json:"url"`     // the thread's first comment
	Authors []string `json:"authors"` // of the replies
	Kind    string   `json:"kind,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// ThreadOf is due as a run lists it.
func ThreadOf(due Due) Thread {
	return Thread{Finding: due.Thread.Finding.ID, Where: due.Where(), URL: due.Thread.URL, Authors: due.Authors()}
}

// Result is what a reply run did.
type Result struct {
	Answered, Skipped []Thread
	// Left are the threads the run did not answer: past the token budget,
	// or a model that failed (Failed names where).
	Left    []Thread
	Failed  []string
	Usage   tokens.Usage
	CostUSD float64
}

// Run answers dues in order: each answer asked, checked (Check), decided
// and posted in its thread, a concession recorded. The token budget stops
// the run, the threads after it left; a model that fails leaves its thread
// and the run goes on. Posting that fails stops the run with an error.
func (r Replier) Run(ctx context.Context, dues []Due) (Result, error) {
	out := Result{Answered: []Thread{}, Skipped: []Thread{}, Left: []Thread{}}
	_, priced := r.Cost(tokens.Usage{})
	for i, due := range dues {
		th := ThreadOf(due)
		a, err := r.Asker.Ask(ctx, r.PR, due, anchored(r.Files, due))
		out.Usage = out.Usage.Add(a.Usage)
		if c, ok := r.Cost(a.Usage); ok {
			a.Cost = c
			out.CostUSD += a.Cost
		}
		var be *llm.BudgetError
		switch {
		case ctx.Err() != nil:
			return out, ctx.Err()
		case errors.As(err, &be) || errors.Is(err, llm.ErrBudget):
			r.Say.Budget(due, err)
			for _, rest := range dues[i:] {
				out.Left = append(out.Left, ThreadOf(rest))
			}
			return out, nil
		case err != nil:
			r.Say.Failed(due, err)
			th.Error = err.Error()
			out.Left = append(out.Left, th)
			out.Failed = append(out.Failed, due.Where())
			continue
		}
		a = Check(a, due, r.Lines)
		if r.Decide != nil {
			post, edited, err := r.Decide(ctx, due, a)
			if err != nil {
				return out, err
			}
			if !post {
				th.Kind = a.Kind
				out.Skipped = append(out.Skipped, th)
				r.Say.Skipped(due)
				continue
			}
			a = edited
		}
		body := Body(a, due, priced)
		if err := r.GitHub.ResolveThreads(ctx, r.Repo, []github.ThreadReply{{ThreadID: due.Thread.ID, Body: body, Open: true}}); err != nil {
			return out, fmt.Errorf("posting the answer in %s failed: %w; run gh ocdx reply again: what was answered is not answered twice", due.Where(), err)
		}
		th.Kind = a.Kind
		out.Answered = append(out.Answered, th)
		if a.Kind == Concede {
			r.Conceded(due.Thread.Finding.ID)
		}
		r.Say.Answered(due, a)
	}
	return out, nil
}
