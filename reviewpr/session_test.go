package reviewpr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/repofs"
)

// scriptedModel answers each request with the next turn's tool calls and
// keeps the requests, so a test reads the results the tools gave.
type scriptedModel struct {
	mu    sync.Mutex
	turns [][]llm.ToolCall
	reqs  []llm.Request
}

func (m *scriptedModel) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	if len(m.turns) == 0 {
		return llm.Response{}, errors.New("script exhausted")
	}
	calls := m.turns[0]
	m.turns = m.turns[1:]
	for i := range calls {
		calls[i].ID = fmt.Sprintf("t%d-c%d", len(m.reqs), i)
	}
	return llm.Response{Calls: calls, Usage: tokens.Usage{Calls: 1, Input: 10, Output: 1}}, nil
}

// results lists every tool result the model was sent, by call name, in order.
func (m *scriptedModel) results() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	last := m.reqs[len(m.reqs)-1]
	names := map[string]string{}
	var out []string
	for _, msg := range last.Messages {
		for _, c := range msg.Calls {
			names[c.ID] = c.Name
		}
		for _, r := range msg.Results {
			prefix := names[r.CallID] + ": "
			if r.IsError {
				prefix = names[r.CallID] + " error: "
			}
			out = append(out, prefix+r.Content)
		}
	}
	return out
}

func tcall(name, args string) llm.ToolCall { return llm.ToolCall{Name: name, Args: []byte(args)} }

// scriptedPerson answers Orient and Decide from lists, in order.
type scriptedPerson struct {
	orient    []OrientReply
	decide    []DecideReply
	proposals []Proposal
	sentBack  [][]string
}

func (p *scriptedPerson) SentBack(_ context.Context, problems []string) {
	p.sentBack = append(p.sentBack, problems)
}

func (p *scriptedPerson) Orient(context.Context, string) (OrientReply, error) {
	r := p.orient[0]
	p.orient = p.orient[1:]
	return r, nil
}

func (p *scriptedPerson) Decide(_ context.Context, pr Proposal) (DecideReply, error) {
	p.proposals = append(p.proposals, pr)
	if len(p.decide) == 0 {
		return DecideReply{Action: Post}, nil
	}
	r := p.decide[0]
	p.decide = p.decide[1:]
	return r, nil
}

type keptPublisher struct{ posted []Proposal }

func (k *keptPublisher) Publish(_ context.Context, p Proposal) (string, error) {
	k.posted = append(k.posted, p)
	return "https://example.com/review", nil
}

// fakePR is a PR with one changed file and any issue asked for.
type fakePR struct{}

func (fakePR) FilesPage(_ context.Context, _ github.Repo, _, page int) ([]github.FilePatch, error) {
	if page > 1 {
		return nil, nil
	}
	return []github.FilePatch{{Filename: "p1/f0.go", Status: "modified", Patch: "@@ -1 +1 @@\n-a\n+b"}}, nil
}

func (fakePR) Issue(_ context.Context, _ github.Repo, n int) (*github.Issue, error) {
	return &github.Issue{Number: n, Title: "Bug", State: "open", Body: "the issue"}, nil
}

// newSession is a session over a checkout holding auth.go and docs/a.md,
// with the PR tools of fakePR.
func newSession(t *testing.T, m llm.Model, person Confirmer, pub Publisher) *Session {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "auth.go"), []byte("package auth // SECRET-CONTENT\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "docs", "a.md"), []byte("docs content\n"), 0o644)
	files, err := repofs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	tools := append(change.RepoTools(files), change.PRTools(fakePR{}, github.Repo{Owner: "o", Name: "r"}, 1)...)
	rc := &change.Context{PR: &github.PullRequest{Number: 1, Title: "t", State: "OPEN"}, Diff: "diff --git a/auth.go b/auth.go\n"}
	return &Session{Model: m, Context: rc, Tools: tools, Confirmer: person, Publisher: pub}
}

func submit(event string) llm.ToolCall {
	return tcall("submit_review", `{"event":"`+event+`","body":"**Verdict:** fine."}`)
}

func TestFetchToolsAnswerOnlyWhatThePersonConfirmed(t *testing.T) {
	m := &scriptedModel{turns: [][]llm.ToolCall{
		// Before any request: every fetch tool is closed, list_files is not.
		{tcall("read_file", `{"path":"auth.go"}`), tcall("search", `{"pattern":"SECRET"}`),
			tcall("pr_diff", `{"path":"p1/f0.go"}`), tcall("issue_view", `{"number":7}`), tcall("list_files", `{}`)},
		{tcall("request_context", `{"proposal":"read auth.go"}`)}, // confirmed
		{tcall("read_file", `{"path":"auth.go"}`)},
		{tcall("request_context", `{"proposal":"read everything"}`)}, // refused
		{tcall("read_file", `{"path":"auth.go"}`)},
		{tcall("request_context", `{"proposal":"read the docs and issues"}`)}, // narrowed
		{tcall("read_file", `{"path":"./docs/a.md"}`), tcall("read_file", `{"path":"auth.go"}`),
			tcall("read_file", `{"path":"docs/../auth.go"}`), tcall("search", `{"pattern":"SECRET"}`),
			tcall("search", `{"pattern":"content","path":"docs"}`), tcall("issue_view", `{"number":7}`),
			tcall("issue_view", `{"number":8}`)},
		{submit("COMMENT")},
	}}
	person := &scriptedPerson{orient: []OrientReply{
		{Action: Fetch}, {Action: Refuse, Text: "the diff is enough"}, {Action: Narrow, Text: "only docs/ and issue #7."},
	}}
	s := newSession(t, m, person, &keptPublisher{})
	if _, err := s.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"read_file error: read_file fetches context, which needs the person's go-ahead: call request_context first",
		"search error: search fetches context, which needs the person's go-ahead",
		"pr_diff error: pr_diff fetches context, which needs the person's go-ahead",
		"issue_view error: issue_view fetches context, which needs the person's go-ahead",
		"list_files: auth.go\ndocs/a.md",
		"request_context: Confirmed",
		"read_file: package auth // SECRET-CONTENT",
		"request_context: Refused. Do not fetch it. The user's reason: the diff is enough",
		`read_file error: the person refused your latest context request (their reason: "the diff is enough")`,
		"request_context: Narrowed. Fetch only this instead: only docs/ and issue #7.",
		"read_file: docs content",
		`read_file error: the person narrowed your latest context request to "only docs/ and issue #7.", which does not name auth.go`,
		`read_file error: the person narrowed your latest context request to "only docs/ and issue #7.", which does not name docs/../auth.go`,
		"search error: the person narrowed your latest context request to \"only docs/ and issue #7.\": search only within a path it names (pass path)",
		"search: docs/a.md:1: docs content",
		"issue_view: #7: Bug (open)",
		`issue_view error: the person narrowed your latest context request to "only docs/ and issue #7.", which does not name issue #8`,
	}
	got := m.results()
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d:\n%s", len(got), len(want), strings.Join(got, "\n---\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("result %d:\n got %.200q\nwant %q…", i, got[i], want[i])
		}
	}
}

func TestModelEventIsCappedUnlessThePersonChooses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		max      github.ReviewEvent
		proposed string
		reply    DecideReply
		want     github.ReviewEvent
		lowered  bool // the event was lowered: Proposed says the model's, for the terminal
	}{
		{"approval by default", "", "APPROVE", DecideReply{}, github.CommentOnly, true},
		{"change request by default", "", "REQUEST_CHANGES", DecideReply{}, github.RequestChanges, false},
		{"approval allowed", github.Approve, "APPROVE", DecideReply{}, github.Approve, false},
		{"approval capped at request-changes", github.RequestChanges, "APPROVE", DecideReply{}, github.CommentOnly, true},
		{"change request capped at comment", github.CommentOnly, "REQUEST_CHANGES", DecideReply{}, github.CommentOnly, true},
		{"comment stays", github.CommentOnly, "COMMENT", DecideReply{}, github.CommentOnly, false},
		{"the person approves", "", "APPROVE", DecideReply{Action: Post, Event: github.Approve}, github.Approve, true},
		{"the person comments", github.Approve, "REQUEST_CHANGES", DecideReply{Action: Post, Event: github.CommentOnly}, github.CommentOnly, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &scriptedModel{turns: [][]llm.ToolCall{{submit(tc.proposed)}}}
			person := &scriptedPerson{decide: []DecideReply{tc.reply}}
			pub := &keptPublisher{}
			s := newSession(t, m, person, pub)
			s.MaxEvent = tc.max
			if _, err := s.Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			if len(pub.posted) != 1 {
				t.Fatalf("posted %d reviews", len(pub.posted))
			}
			p := pub.posted[0]
			if p.Event != tc.want {
				t.Errorf("posted %s, want %s", p.Event, tc.want)
			}
			// A note for the person (how to let the approval through) is
			// never posted: the body is the model's.
			if p.Body != "**Verdict:** fine." {
				t.Errorf("posted body %q, want the model's alone", p.Body)
			}
			if got := person.proposals[0].Proposed; tc.lowered != (got == github.ReviewEvent(tc.proposed)) {
				t.Errorf("shown as proposed %q; lowered %t", got, tc.lowered)
			}
			// The person sees what would be posted before choosing.
			if shown := person.proposals[0]; tc.reply.Event == "" && (shown.Event != p.Event || shown.Body != p.Body) {
				t.Errorf("shown %+v, posted %+v", shown, p)
			}
		})
	}
}

// The person's edit is posted in place of the model's body, with the
// event shown (or the one they chose), and no secret they pasted.
func TestThePersonsEditIsPosted(t *testing.T) {
	for _, tc := range []struct {
		reply DecideReply
		want  github.ReviewEvent
	}{
		{DecideReply{Action: Post, Edited: true, Body: "My words.\ntoken ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"}, github.RequestChanges},
		{DecideReply{Action: Post, Edited: true, Body: "My words.\ntoken ghp_abcdefghijklmnopqrstuvwxyz0123456789\n", Event: github.Approve}, github.Approve},
	} {
		m := &scriptedModel{turns: [][]llm.ToolCall{{submit("REQUEST_CHANGES")}}}
		pub := &keptPublisher{}
		s := newSession(t, m, &scriptedPerson{decide: []DecideReply{tc.reply}}, pub)
		if _, err := s.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		if len(pub.posted) != 1 || pub.posted[0].Event != tc.want || !strings.HasPrefix(pub.posted[0].Body, "My words.") ||
			strings.Contains(pub.posted[0].Body, "ghp_") || strings.Contains(pub.posted[0].Body, "Verdict") {
			t.Errorf("posted %+v", pub.posted)
		}
	}
}

func TestNamesPathAndNumber(t *testing.T) {
	for _, tc := range []struct {
		text, path string
		want       bool
	}{
		{"only auth.go", "auth.go", true},
		{"only auth.go.", "./auth.go", true},
		{"only auth.go", "h.go", false},
		{"read internal/auth/ please", "internal/auth/token.go", true},
		{"read internal/auth", "internal/authz/x.go", false},
		{"read internal/auth", "internal/auth/../../etc/passwd", false},
		{"read ..", "../x", false},
		{"everything under .", "auth.go", false},
		{"`cmd/root.go`, and cmd/x.go", "cmd/root.go", true},
	} {
		if got := namesPath(tc.text, tc.path); got != tc.want {
			t.Errorf("namesPath(%q, %q) = %v", tc.text, tc.path, got)
		}
	}
	for _, tc := range []struct {
		text string
		n    int
		want bool
	}{
		{"issue #12", 12, true}, {"issues 12 and 13.", 13, true}, {"issue #123", 12, false}, {"v1.12", 12, false}, {"issue 0", 0, false},
	} {
		if got := namesNumber(tc.text, tc.n); got != tc.want {
			t.Errorf("namesNumber(%q, %d) = %v", tc.text, tc.n, got)
		}
	}
}
