package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/cli/go-gh/v2/pkg/api"

	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// maxBody is the longest comment or review body gh-ocdx sends; GitHub refuses
// bodies of 65,536 characters or more.
const maxBody = 65000

// truncatedNotice ends a body that had to be cut.
const truncatedNotice = "\n\n[TRUNCATED_COMMENT]"

// capBody cuts body to maxBody characters (runes), ending with truncatedNotice.
func capBody(body string) string { return CapBodyWith(body, "") }

// CapBodyWith is body, cut as capBody cuts it so that tail fits after it,
// then tail whole: the hidden blocks that end a report (its ledger) survive
// a cut.
func CapBodyWith(body, tail string) string {
	r := []rune(body)
	room := maxBody - len([]rune(tail))
	if len(r) <= room {
		return body + tail
	}
	keep := max(0, room-len([]rune(truncatedNotice)))
	return string(r[:keep]) + truncatedNotice + tail
}

// postable is the last step of every body gh-ocdx posts, whichever caller
// sent it: a line holding a secret or a credential gh-ocdx knows becomes
// [REDACTED]; control characters and bidirectional overrides from the PR or
// a model are made inert (they would act on the terminal of whoever reads
// the comment in one, or reorder what the browser shows); then it is capped.
func postable(body string) string {
	return capBody(text.Inert(redact.Secrets(body)))
}

// Comment is a posted issue comment.
type Comment struct {
	ID          int64  `json:"id"`
	URL         string `json:"html_url"`
	Body        string `json:"body"`
	Author      string `json:"-"`
	Association string `json:"author_association"` // OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE…
	Created     string `json:"created_at"`
}

// PostComment adds a comment to the PR's conversation. It is sent once: a
// failed POST may still have been applied, so callers check for their tag
// before posting again.
func (c *Client) PostComment(ctx context.Context, repo Repo, number int, body string) (*Comment, error) {
	var out Comment
	err := c.post(ctx, fmt.Sprintf("repos/%s/%s/issues/%d/comments", repo.Owner, repo.Name, number),
		map[string]string{"body": postable(body)}, &out)
	if err != nil {
		return nil, c.explainWrite(err, fmt.Sprintf("a comment on PR #%d", number), repo)
	}
	return &out, nil
}

// ReviewEvent is what a review does to the PR.
type ReviewEvent string

const (
	Approve        ReviewEvent = "APPROVE"
	RequestChanges ReviewEvent = "REQUEST_CHANGES"
	CommentOnly    ReviewEvent = "COMMENT"
)

// PostedReview is a submitted review.
type PostedReview struct {
	ID    int64  `json:"id"`
	URL   string `json:"html_url"`
	State string `json:"state"`
}

// ReviewComment is an inline comment of a review, on lines of the PR's
// diff (see diff.Lines.Anchor): Line alone, or StartLine..Line, on Side.
type ReviewComment struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	StartLine int    `json:"start_line,omitempty"`
	Side      string `json:"side"`
	StartSide string `json:"start_side,omitempty"`
	Body      string `json:"body"`
}

// PostReview submits a review with event and body. Sent once, like PostComment.
func (c *Client) PostReview(ctx context.Context, repo Repo, number int, event ReviewEvent, body string) (*PostedReview, error) {
	return c.PostReviewComments(ctx, repo, number, event, body, nil)
}

// PostReviewComments submits a review with its inline comments in one
// request. Each comment body is made postable like the review's. GitHub
// refuses the whole review (422) when a comment is not on a line of the
// diff: callers check anchors first (docs/architecture.md, Posting).
func (c *Client) PostReviewComments(ctx context.Context, repo Repo, number int, event ReviewEvent, body string, comments []ReviewComment) (*PostedReview, error) {
	switch event {
	case Approve, RequestChanges, CommentOnly:
	default:
		return nil, fmt.Errorf("unknown review event %q: use APPROVE, REQUEST_CHANGES or COMMENT", event)
	}
	payload := struct {
		Event    string          `json:"event"`
		Body     string          `json:"body"`
		Comments []ReviewComment `json:"comments,omitempty"`
	}{Event: string(event), Body: postable(body)}
	for _, cm := range comments {
		cm.Body = postable(cm.Body)
		if cm.StartLine > 0 {
			cm.StartSide = cm.Side
		}
		payload.Comments = append(payload.Comments, cm)
	}
	var out PostedReview
	err := c.post(ctx, fmt.Sprintf("repos/%s/%s/pulls/%d/reviews", repo.Owner, repo.Name, number), payload, &out)
	if err != nil {
		return nil, c.explainWrite(err, fmt.Sprintf("a review on PR #%d", number), repo)
	}
	return &out, nil
}

// Unprocessable reports whether err is GitHub refusing a write as invalid
// (422), which it never applied.
func Unprocessable(err error) bool {
	var he *api.HTTPError
	return errors.As(err, &he) && he.StatusCode == http.StatusUnprocessableEntity
}

// ThreadReply is a reply to post on a review thread before resolving it.
type ThreadReply struct {
	ThreadID string // the thread's node id
	Body     string
	Open     bool // reply only: the thread stays open
}

// ResolveThreads replies on each thread and resolves it (unless the reply
// is Open), all in one GraphQL document (aliased mutations run in order).
// Like a POST it is sent once.
func (c *Client) ResolveThreads(ctx context.Context, repo Repo, replies []ThreadReply) error {
	if len(replies) == 0 {
		return nil
	}
	var params, fields []string
	vars := map[string]any{}
	for i, r := range replies {
		params = append(params, fmt.Sprintf("$t%d: ID!, $b%d: String!", i, i))
		fields = append(fields, fmt.Sprintf("  r%d: addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $t%d, body: $b%d}) { comment { id } }", i, i, i))
		if !r.Open {
			fields = append(fields, fmt.Sprintf("  s%d: resolveReviewThread(input: {threadId: $t%d}) { thread { id isResolved } }", i, i))
		}
		vars[fmt.Sprintf("t%d", i)] = r.ThreadID
		vars[fmt.Sprintf("b%d", i)] = postable(r.Body)
	}
	doc := "mutation ResolveThreads(" + strings.Join(params, ", ") + ") {\n" + strings.Join(fields, "\n") + "\n}"
	var out map[string]any
	if err := c.gql.DoWithContext(ctx, doc, vars, &out); err != nil {
		return c.explainWrite(err, fmt.Sprintf("the resolution of %s", text.Plural(len(replies), "review thread")), repo)
	}
	return nil
}

func (c *Client) post(ctx context.Context, path string, payload any, out any) error {
	return c.send(ctx, http.MethodPost, path, payload, out)
}

func (c *Client) send(ctx context.Context, method, path string, payload any, out any) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	return c.rest.DoWithContext(ctx, method, path, bytes.NewReader(b), out)
}

// explainWrite is explain for a write, whose outcome may be unknown.
func (c *Client) explainWrite(err error, what string, repo Repo) error {
	var he *api.HTTPError
	if errors.As(err, &he) && he.StatusCode < 500 {
		return fmt.Errorf("posting %s failed: %w", what, c.explain(err, what, repo))
	}
	return fmt.Errorf("posting %s failed and may or may not have been applied, so it was not retried: %w", what, c.explain(err, what, repo))
}

// HeadOID reads the PR's current head commit (REST, one request), to check
// that a push arrived.
func (c *Client) HeadOID(ctx context.Context, repo Repo, number int) (string, error) {
	var out struct {
		Head struct {
			SHA string `json:"sha"`
		} `json:"head"`
	}
	err := c.rest.DoWithContext(ctx, http.MethodGet, fmt.Sprintf("repos/%s/%s/pulls/%d", repo.Owner, repo.Name, number), nil, &out)
	if err != nil {
		return "", c.explain(err, fmt.Sprintf("PR #%d", number), repo)
	}
	return out.Head.SHA, nil
}

// UpdateComment replaces the body of the comment id: a post gh-ocdx keeps
// current (describe's description) is edited in place, not posted again.
// The body is made postable like PostComment's; sent once.
func (c *Client) UpdateComment(ctx context.Context, repo Repo, id int64, body string) (*Comment, error) {
	var out Comment
	err := c.send(ctx, http.MethodPatch, fmt.Sprintf("repos/%s/%s/issues/comments/%d", repo.Owner, repo.Name, id),
		map[string]string{"body": postable(body)}, &out)
	if err != nil {
		return nil, c.explainWrite(err, fmt.Sprintf("the edit of comment %d", id), repo)
	}
	return &out, nil
}

// EditPRBody sets the PR's body to body, sent as it is: the author's text
// in it stays theirs, byte for byte, so the caller makes postable the part
// it wrote (docs/architecture.md, Describe). A body too long for GitHub is
// refused before sending; sent once.
func (c *Client) EditPRBody(ctx context.Context, repo Repo, number int, body string) error {
	if n := len([]rune(body)); n > maxBody {
		return fmt.Errorf("the body of PR #%d would be %d characters with the description, over GitHub's limit: post it as a comment instead (--post)", number, n)
	}
	err := c.send(ctx, http.MethodPatch, fmt.Sprintf("repos/%s/%s/pulls/%d", repo.Owner, repo.Name, number),
		map[string]string{"body": body}, nil)
	if err != nil {
		return c.explainWrite(err, fmt.Sprintf("the body of PR #%d", number), repo)
	}
	return nil
}
