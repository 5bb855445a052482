package posts

import (
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
)

// Which posts on a PR are gh-ocdx's own, and what they say of its threads
// and answers (docs/architecture.md, The footprint; Whose posts count).

// Own reports whether a comment is gh-ocdx's: it carries the marker and was
// posted by the login gh-ocdx posts as, or one the PR trusts (Trust.Judge).
// A copy of the marker by anyone else is human content like any other.
func Own(pr *github.PullRequest, body, author string) bool {
	return strings.Contains(body, Marker) && pr.Trusts(author)
}

// ThreadID is the ID of the finding of the thread whose first human
// comment is c: THREAD-<its database id>, which stays when the thread is
// edited (THREAD-<node id> without one, as ledgers before it spelled it).
func ThreadID(c github.ThreadComment) string { return "THREAD-" + c.Key() }

// legacyThreadIDs maps the IDs earlier ledgers and commands gave pr's
// threads (THREAD-<node id of the first human comment>) to today's.
func legacyThreadIDs(pr *github.PullRequest) map[string]string {
	m := map[string]string{}
	for _, f := range threadFirsts(pr) {
		if f.DatabaseID != "" {
			m["THREAD-"+f.ID] = ThreadID(f)
		}
	}
	return m
}

// threadFirsts are the first human comments of pr's threads.
func threadFirsts(pr *github.PullRequest) []github.ThreadComment {
	var out []github.ThreadComment
	for _, th := range pr.Threads {
		for _, c := range th.Comments {
			if !Own(pr, c.Body, c.Author) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// CommandAnswered reports whether one of gh-ocdx's own posts on pr, in
// conv (its conversation as read; pr.Comments are its last 50) or a review
// thread, answers the comment with the database
// id (CommandTag) or, as earlier versions' loops wrote it, the refused
// command at url (docs/architecture.md, Commands).
func CommandAnswered(pr *github.PullRequest, conv []github.Comment, id, url string) bool {
	var tags []string
	if id != "" {
		tags = append(tags, CommandTag(id))
	}
	if url != "" {
		tags = append(tags, Refusal{URL: url}.Tag(), legacyRefusedTag(Refusal{URL: url}))
	}
	answers := func(body, author string) bool {
		return Own(pr, body, author) && slices.ContainsFunc(tags, func(t string) bool { return strings.Contains(body, t) })
	}
	for _, c := range conv {
		if answers(c.Body, c.Author) {
			return true
		}
	}
	for _, th := range pr.Threads {
		for _, c := range th.Comments {
			if answers(c.Body, c.Author) {
				return true
			}
		}
	}
	return false
}

// Concedable reports whether a conversation may concede t's finding: never a P0 or
// one of gh-ocdx's SEC- findings.
func (t OwnThread) Concedable() bool {
	// A thread an earlier version opened names no priority: it may be a P0.
	return t.Priority != "" && t.Priority != "P0" && !strings.HasPrefix(t.Finding.ID, "SEC-")
}

// OwnThread is a review thread gh-ocdx opened for a finding.
type OwnThread struct {
	ID       string // node id, for the resolution
	URL      string // its first comment
	Finding  finding.Finding
	Resolved bool
	Replies  []github.ThreadComment // what people answered on it
	// Answers are gh-ocdx's answers to those replies (AnswerTag), and
	// Conceded says one of them conceded the finding (ConcededTag),
	// ConcededTo to whom: the author of the newest reply that answer names
	// ("" when GitHub names nobody).
	Answers    []github.ThreadComment
	Conceded   bool
	ConcededTo string
	// Closed says gh-ocdx already replied that its finding is fixed or
	// resolved, and resolved it (FixedTag; "Fixed in" before the tag).
	Closed bool
	// Priority and Agreement are what the thread last said of its finding
	// ("-": raised by no reviewer); "" when its comments do not say.
	Priority, Agreement string
}

// OwnThreads are the threads whose first comment is gh-ocdx's (the marker,
// by the login it posts as) and names a finding.
func OwnThreads(pr *github.PullRequest) []OwnThread {
	var out []OwnThread
	for _, th := range pr.Threads {
		if len(th.Comments) == 0 || !Own(pr, th.Comments[0].Body, th.Comments[0].Author) {
			continue
		}
		first := th.Comments[0]
		m, ok := readThreadTag(first.Body)
		if !ok {
			continue
		}
		line := first.Line
		if line == nil {
			line = th.Line
		}
		ot := OwnThread{ID: th.ID, URL: first.URL, Resolved: th.IsResolved, Priority: m.Priority, Agreement: m.Agreement,
			Finding: finding.Finding{ID: m.ID, Category: m.Category, Title: m.Title, File: first.Path, Line: line}}
		for _, c := range th.Comments[1:] {
			if !Own(pr, c.Body, c.Author) {
				ot.Replies = append(ot.Replies, c)
				continue
			}
			ot.Closed = ot.Closed || strings.Contains(c.Body, FixedTag(ot.Finding.ID)) || strings.HasPrefix(c.Body, Marker+"\nFixed in ")
			if p, a, ok := readUpdateTag(c.Body); ok {
				ot.Priority, ot.Agreement = p, a
			}
			if strings.Contains(c.Body, answerPrefix) {
				ot.Answers = append(ot.Answers, c)
				if strings.Contains(c.Body, ConcededTag(ot.Finding.ID)) && !ot.Conceded {
					ot.Conceded = true
					for _, r := range ot.Replies {
						if strings.Contains(c.Body, AnswerTag(r.Key())) {
							ot.ConcededTo = r.Author
						}
					}
				}
			}
		}
		out = append(out, ot)
	}
	return out
}

// Concession is a finding gh-ocdx conceded in one of its threads, and who
// wrote the reply it conceded to ("" when GitHub names nobody).
type Concession struct{ ID, To string }

func (c Concession) finding() string { return c.ID }

// Concessions are the findings of pr's threads gh-ocdx conceded in a
// conversation, each once (its first thread's): never a P0 or a SEC-
// finding.
func Concessions(pr *github.PullRequest) []Concession {
	var out []Concession
	for _, t := range OwnThreads(pr) {
		if t.Conceded && t.Concedable() && !slices.ContainsFunc(out, func(c Concession) bool { return c.ID == t.Finding.ID }) {
			out = append(out, Concession{ID: t.Finding.ID, To: t.ConcededTo})
		}
	}
	return out
}
