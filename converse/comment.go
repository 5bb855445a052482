package converse

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
)

// The comment flow (gh ocdx command, the Action's issue_comment and
// pull_request_review_comment runs; docs/architecture.md, Commands): one
// comment, answered once, counts only through the one permission check; a
// command that runs a verb (review, fix, ask, a reply run) is the verb's,
// which the caller wires.

// Comment is the comment a command run acts on.
type Comment struct {
	ID, Author, Body, URL string
	Thread                *posts.OwnThread // a reply in one of gh-ocdx's threads
	ThreadID              string           // the review thread it is in, if any
}

// Answerer posts on a PR; *github.Client is one.
type Answerer interface {
	Comments(ctx context.Context, repo github.Repo, number int) ([]github.Comment, error)
	PostComment(ctx context.Context, repo github.Repo, number int, body string) (*github.Comment, error)
	Poster
}

// Commander acts on one comment of PR, whose posts Trust has judged.
type Commander struct {
	GitHub Answerer
	Repo   github.Repo
	PR     *github.PullRequest
	Trust  *posts.Trust
	// FixOn says the base branch's policy lets a comment fix
	// (config.Policy.CommandsFix).
	FixOn bool
	Info  func(format string, args ...any)
	Warn  func(format string, args ...any)
	// The verbs a comment runs.
	Reply  func(ctx context.Context, thread string) error
	Ask    func(ctx context.Context, c Comment, tag, question string) error
	Review func(ctx context.Context, reviewOnly string) error
	Fix    func(ctx context.Context) error
}

// Run acts on the comment with the database id: nothing when it is
// answered already, gh-ocdx's own, or neither a command nor a reply due
// an answer; else one answer, or the verb it runs, when its author may.
func (m Commander) Run(ctx context.Context, commentID int64) error {
	repo, pr := m.Repo, m.PR
	conv, err := m.GitHub.Comments(ctx, repo, pr.Number)
	if err != nil {
		return err
	}
	id := strconv.FormatInt(commentID, 10)
	c, err := FindComment(pr, conv, id)
	if err != nil {
		return err
	}
	tag := posts.CommandTag(id)
	if posts.CommandAnswered(pr, conv, id, c.URL) {
		m.Info("gh-ocdx already answered comment %s on %s#%d: nothing to do", id, repo, pr.Number)
		return nil
	}
	if posts.Own(pr, c.Body, c.Author) {
		m.Info("comment %s is gh-ocdx's own: nothing to do", id)
		return nil
	}
	cmd, isCmd := posts.ParseCommand(c.Body)
	if !isCmd && c.Thread == nil {
		m.Info("comment %s is neither an /ocdx command nor a reply in gh-ocdx's threads: nothing to do", id)
		return nil
	}
	if !isCmd && !dueIn(pr, c.ThreadID) {
		m.Info("comment %s needs no answer: nothing to do", id)
		return nil
	}
	// The one permission check, before any model (docs/architecture.md,
	// Who may dismiss).
	perm, err := m.Trust.Permission(ctx, c.Author)
	if err != nil {
		return fmt.Errorf("could not check whether %s may run /ocdx commands on %s: %w; nothing was run", c.Author, repo, err)
	}
	answer := func(words string) error {
		return PostAnswer(ctx, m.GitHub, repo, pr.Number, c, Post(tag, c.Author, words))
	}
	if ok, why := posts.MayCommand(repo, perm, c.Author); !ok {
		m.Warn("not run: comment %s by %s: %s", id, c.Author, why)
		return answer(why + "; someone with write permission can run it.")
	}
	if !isCmd {
		m.Info("answering the replies in gh-ocdx's threads (comment %s by %s)", id, c.Author)
		return m.Reply(ctx, c.ThreadID)
	}
	if (cmd.Verb == posts.CmdReview || cmd.Verb == posts.CmdFix) && pr.IsCrossRepository {
		// Both would run the fork's code (its verify commands, the fix
		// agent's) where the comment's workflow keeps a write token and the
		// model keys (docs/architecture.md, Commands).
		return answer(fmt.Sprintf("/ocdx review and /ocdx fix do not run on a pull request from a fork (%s): its code would run next to this repository's write token and model keys; a maintainer reviews it with `gh ocdx review-pr %d`.",
			cmp.Or(pr.HeadRepository, "deleted"), pr.Number))
	}
	switch cmd.Verb {
	case posts.CmdAsk:
		return m.Ask(ctx, c, tag, cmd.Question)
	case posts.CmdDismiss, posts.CmdRestore:
		return m.dismissOrRestore(ctx, c, tag, cmd, perm)
	case posts.CmdReview:
		why := ""
		if !m.FixOn {
			why = "fixes from a comment are off on this repository (the base branch's .ocdx.json has no \"commands\": {\"fix\": true})"
		}
		note := "reviewing now; the report follows."
		if why != "" {
			note = "reviewing now, without fixing: " + why + "; the report follows."
		}
		if err := answer(note); err != nil {
			return err
		}
		return m.Review(ctx, why)
	case posts.CmdFix:
		if !m.FixOn {
			return answer("fixing from a comment is off on this repository: the base branch's .ocdx.json must say \"commands\": {\"fix\": true}.")
		}
		if err := answer("fixing the open findings now; the fix report follows."); err != nil {
			return err
		}
		return m.Fix(ctx)
	}
	// An unknown verb is answered once on the PR, then the run fails: the
	// Action's log and its exit code say the comment did nothing.
	known := "/ocdx " + strings.Join(posts.Verbs, ", /ocdx ")
	if err := answer(fmt.Sprintf("gh-ocdx knows %s.", known)); err != nil {
		return err
	}
	what := "an /ocdx command without a verb"
	if cmd.Verb != "" {
		what = fmt.Sprintf("/ocdx %s is not a command of gh-ocdx", text.Clip(text.OneLine(cmd.Verb), 40))
	}
	return fmt.Errorf("comment %s: %s; it knows %s (the comment was answered so)", id, what, known)
}

// dueIn reports whether the review thread has replies due an answer.
func dueIn(pr *github.PullRequest, thread string) bool {
	for _, due := range DueReplies(pr) {
		if due.Thread.ID == thread {
			return true
		}
	}
	return false
}

// FindComment is the comment with the database id on pr: in its
// conversation, or in a review thread.
func FindComment(pr *github.PullRequest, conv []github.Comment, id string) (Comment, error) {
	for _, c := range conv {
		if strconv.FormatInt(c.ID, 10) == id {
			return Comment{ID: id, Author: c.Author, Body: c.Body, URL: c.URL}, nil
		}
	}
	own := posts.OwnThreads(pr)
	for _, th := range pr.Threads {
		for _, tc := range th.Comments {
			if tc.DatabaseID != id {
				continue
			}
			out := Comment{ID: id, Author: tc.Author, Body: tc.Body, URL: tc.URL, ThreadID: th.ID}
			for i := range own {
				if own[i].ID == th.ID {
					out.Thread = &own[i]
				}
			}
			return out, nil
		}
	}
	return Comment{}, fmt.Errorf("no comment %s on PR #%d (its conversation or review threads): check --comment-id", id, pr.Number)
}

// PostAnswer answers c where it was written: in its review thread, else
// in the conversation.
func PostAnswer(ctx context.Context, gh Answerer, repo github.Repo, number int, c Comment, body string) error {
	if c.ThreadID != "" {
		return gh.ResolveThreads(ctx, repo, []github.ThreadReply{{ThreadID: c.ThreadID, Body: body, Open: true}})
	}
	_, err := gh.PostComment(ctx, repo, number, body)
	return err
}

// dismissOrRestore answers /ocdx dismiss and /ocdx restore: the loop acts
// on the command itself from its next run; this says whether it counts,
// by the rule the loop applies (posts.MayOverrule).
func (m Commander) dismissOrRestore(ctx context.Context, c Comment, tag string, cmd posts.Command, perm github.Permission) error {
	repo, pr := m.Repo, m.PR
	answer := func(tags, words string) error {
		return PostAnswer(ctx, m.GitHub, repo, pr.Number, c, Post(tags, c.Author, words))
	}
	// The answer names what the loop will act on, read as the loop reads
	// it: in one of gh-ocdx's threads a dismissal is of that thread's
	// finding, whatever IDs follow; a restore counts only in the
	// conversation; either only as written "/ocdx dismiss ID…".
	var ids []string
	var ok bool
	switch {
	case cmd.Verb == posts.CmdRestore && c.ThreadID != "":
		return answer(tag, "a restore counts only in the pull request's conversation: write `/ocdx restore <ID>` there.")
	case cmd.Verb == posts.CmdRestore:
		ids, ok = cmd.IDs, cmd.AsWritten
	case c.Thread != nil:
		ok = cmd.AsWritten
		ids = []string{c.Thread.Finding.ID}
	case c.ThreadID != "":
		return answer(tag, "a dismissal counts in one of gh-ocdx's threads or in the pull request's conversation: write `/ocdx dismiss <ID>` there.")
	default:
		ids, ok = cmd.IDs, cmd.AsWritten
	}
	if !ok {
		return answer(tag, fmt.Sprintf("write the command as `/ocdx %s <ID>…` on the comment's first line: as written, gh-ocdx does not read it.", cmd.Verb))
	}
	if len(ids) == 0 {
		return answer(tag, fmt.Sprintf("name the findings to %s by their IDs (QUAL-1a2b3c4d), as the reports show them.", cmd.Verb))
	}
	var refused, whys []string
	for _, id := range ids {
		if ok, why := posts.MayOverrule(cmd.Verb, repo, perm, c.Author, pr.Author, id); !ok {
			refused = append(refused, id)
			whys = append(whys, why)
		}
	}
	if len(refused) > 0 {
		// Earlier versions' loops know the answer by this tag.
		extra := posts.Refusal{By: c.Author, URL: c.URL, IDs: refused}.Tag()
		return answer(tag+"\n"+extra, fmt.Sprintf("your /ocdx %s of %s does not count: %s.", cmd.Verb, strings.Join(refused, ", "), strings.Join(whys, "; ")))
	}
	if not := Unraised(ctx, m.Trust, pr, cmd.Verb, ids); len(not) > 0 {
		return answer(tag, fmt.Sprintf("no review on this pull request raised %s for a %s (gh-ocdx's latest report does not list it so): there is nothing to %s.", strings.Join(not, ", "), cmd.Verb, cmd.Verb))
	}
	done := "dismissed: gh-ocdx stops raising and fixing it from its next run."
	if cmd.Verb == posts.CmdRestore {
		done = "restored: it counts again from gh-ocdx's next run."
	}
	return answer(tag, strings.Join(ids, ", ")+" "+done)
}
