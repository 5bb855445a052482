package github

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// PullRequest is everything gh-ocdx reads about a PR in one query.
type PullRequest struct {
	Number            int
	Title, Body, URL  string
	State             string // OPEN, CLOSED, MERGED
	IsDraft           bool
	Author            string
	HeadRefName       string
	HeadRefOid        string
	BaseRefName       string
	BaseRefOid        string
	IsCrossRepository bool
	HeadRepository    string // OWNER/REPO of the head; "" when the fork was deleted
	ViewerPermission  string // on the head repository: ADMIN, MAINTAIN, WRITE, TRIAGE, READ
	Additions         int
	Deletions         int
	ChangedFiles      int
	ClosingIssues     []IssueRef
	Files             []ChangedFile
	FilesTruncated    bool // more files than maxPages pages; ChangedFiles has the total
	Reviews           []Review
	Comments          []Comment // the conversation's last 50 comments, oldest first
	Threads           []ReviewThread
	ThreadsTruncated  bool   // more than MaxThreads review threads
	Viewer            string // the login of the token: gh-ocdx posts as this user
	// Trusted are the logins besides Viewer whose posts count as gh-ocdx's
	// own (a CI bot, someone with write permission): the loop sets them
	// once it has judged the PR's authors (docs/architecture.md, Whose
	// posts count).
	Trusted []string
	// BasePolicy is .ocdx.json on the base branch: the repository's policy
	// for this PR, which the PR's author cannot change (unlike the head's).
	BasePolicy PolicyFile
	// BaseGuide is REVIEW.md on the base branch, read with BasePolicy.
	BaseGuide PolicyFile
	// BaseLearnings is .ocdx/learnings.md on the base branch, read with
	// BasePolicy (docs/architecture.md, Learnings).
	BaseLearnings PolicyFile
}

// ByViewer reports whether author is the login gh-ocdx posts as. Anyone can
// copy gh-ocdx's marker and tags into a comment, so only this decides what
// is gh-ocdx's own.
func (pr *PullRequest) ByViewer(author string) bool {
	return pr != nil && pr.Viewer != "" && strings.EqualFold(author, pr.Viewer)
}

// Trusts reports whether author's posts count as gh-ocdx's own: the
// viewer's, and those of the logins in Trusted.
func (pr *PullRequest) Trusts(author string) bool {
	if pr == nil || pr.ByViewer(author) {
		return pr != nil
	}
	for _, t := range pr.Trusted {
		if author != "" && strings.EqualFold(author, t) {
			return true
		}
	}
	return false
}

// PolicyFile is a repository policy file (.ocdx.json, REVIEW.md, the
// learnings) as a commit of the base has it: the PR query reads the base
// branch's tip, gh ocdx review the merge base with git, and config.FromBase
// takes either (docs/architecture.md, Where the repository policy comes
// from).
type PolicyFile struct {
	Commit    string // the commit the file was read at; "" when the branch is gone
	Found     bool
	Text      string
	Truncated bool // only the start of the file was given
	NotText   bool // no text was given: a binary file, or not a file
}

// IssueRef is a linked issue, by reference only: a task names issues and
// the model reads one with issue_view if it needs to.
type IssueRef struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	URL    string `json:"url"`
}

// ChangedFile is one file of the PR.
type ChangedFile struct {
	Path       string `json:"path"`
	Additions  int    `json:"additions"`
	Deletions  int    `json:"deletions"`
	ChangeType string `json:"changeType"`
}

// Review is a submitted review: a maintainer's change request decides the
// consensus.
type Review struct {
	State       string `json:"state"`
	Author      string `json:"author"`
	Association string `json:"authorAssociation"`
	SubmittedAt string `json:"submittedAt"`
	Body        string `json:"body"` // tells gh-ocdx's own reviews (the marker) from people's
	URL         string `json:"url"`
	// EditedBy is who last edited the body when not its author: the
	// body's text is theirs, and counts as gh-ocdx's only if they do.
	EditedBy string `json:"editedBy,omitempty"`
}

// Writer is who last wrote r's body.
func (r Review) Writer() string {
	if r.EditedBy != "" {
		return r.EditedBy
	}
	return r.Author
}

// ReviewThread is a review thread with its first comments.
type ReviewThread struct {
	ID         string `json:"id"`
	IsResolved bool   `json:"isResolved"`
	// ResolvedBy is who resolved it ("" while open, or when GitHub names
	// nobody): whether the resolution counts depends on who.
	ResolvedBy string          `json:"resolvedBy,omitempty"`
	IsOutdated bool            `json:"isOutdated"`
	Path       string          `json:"path"`
	Line       *int            `json:"line"`
	Comments   []ThreadComment `json:"comments"`
}

// ThreadComment is one comment of a review thread.
type ThreadComment struct {
	ID string `json:"id"`
	// DatabaseID is the comment's number (GraphQL fullDatabaseId, a
	// BigInt GitHub sends as a string), the key of a thread's finding.
	DatabaseID  string `json:"fullDatabaseId"`
	Body        string `json:"body"`
	Author      string `json:"author"`
	Association string `json:"authorAssociation"`
	Path        string `json:"path"`
	Line        *int   `json:"line"`
	CreatedAt   string `json:"createdAt"`
	URL         string `json:"url"`
}

// Key names c in gh-ocdx's tags and thread IDs: its database id, which
// stays when the comment is edited, else its node id.
func (c ThreadComment) Key() string {
	if c.DatabaseID != "" {
		return c.DatabaseID
	}
	return c.ID
}

// maxPages bounds the pages of files (100 each); maxThreadPages those of
// review threads: a long-lived PR's 5,000 threads are read, so that
// resolved ones never block a run (docs/architecture.md, A round of review-loop).
const (
	maxPages       = 3
	maxThreadPages = 50
)

// MaxThreads is how many review threads gh-ocdx reads of a PR.
const MaxThreads int64 = maxThreadPages * 100

// prQuery is the one document for a PR's context. The first request asks for
// everything; follow-up pages ask only for the connections still open.
const prQuery = `query PullRequestContext($owner: String!, $name: String!, $number: Int!,
  $meta: Boolean!, $files: Boolean!, $filesAfter: String, $threads: Boolean!, $threadsAfter: String) {
  viewer @include(if: $meta) { login }
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      ...Meta @include(if: $meta)
      files(first: 100, after: $filesAfter) @include(if: $files) {
        pageInfo { hasNextPage endCursor }
        nodes { path additions deletions changeType }
      }
      reviewThreads(first: 100, after: $threadsAfter) @include(if: $threads) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved resolvedBy { login } isOutdated path line
          comments(first: 50) {
            nodes { id fullDatabaseId body author { __typename login } editor { __typename login } authorAssociation path line createdAt url }
          }
        }
      }
    }
  }
}

fragment Meta on PullRequest {
  number title body url state isDraft
  author { login }
  headRefName headRefOid baseRefName baseRefOid isCrossRepository
  headRepository { nameWithOwner viewerPermission }
  additions deletions changedFiles
  closingIssuesReferences(first: 50) { nodes { number title url } }
  reviews(last: 100) { nodes { state author { __typename login } editor { __typename login } authorAssociation submittedAt body url } }
  comments(last: 50) { nodes { fullDatabaseId author { __typename login } editor { __typename login } authorAssociation body url createdAt } }
  baseRef { target { oid ... on Commit {
    policy: file(path: ".ocdx.json") { object { ... on Blob { text isTruncated } } }
    guide: file(path: "REVIEW.md") { object { ... on Blob { text isTruncated } } }
    learnings: file(path: ".ocdx/learnings.md") { object { ... on Blob { text isTruncated } } }
  } } }
}`

// blobFile is a Commit.file answer: null when the commit has no such path.
type blobFile struct {
	Object *struct {
		Text        *string `json:"text"`
		IsTruncated bool    `json:"isTruncated"`
	} `json:"object"`
}

func (b *blobFile) policyFile(commit string) PolicyFile {
	f := PolicyFile{Commit: commit}
	if b != nil && b.Object != nil {
		o := b.Object
		f.Found, f.Truncated, f.NotText = true, o.IsTruncated, o.Text == nil
		if o.Text != nil {
			f.Text = *o.Text
		}
	}
	return f
}

type pageInfo struct {
	HasNextPage bool   `json:"hasNextPage"`
	EndCursor   string `json:"endCursor"`
}

type login struct {
	Login string `json:"login"`
}

// actor is an author whose kind matters: GraphQL names a bot "name" where
// REST and the viewer say "name[bot]", and a user may own the bare name.
type actor struct {
	Type  string `json:"__typename"`
	Login string `json:"login"`
}

// writer is who last wrote a post's text: its author, or whoever edited
// it since (GitHub lets people with write permission edit others' posts).
// Whose text it is decides whether it counts as gh-ocdx's own.
func writer(author, editor *actor) string {
	if e := editor.String(); e != "" {
		return e
	}
	return author.String()
}

func (a *actor) String() string {
	if a == nil {
		return ""
	}
	if a.Type == "Bot" && !strings.HasSuffix(a.Login, "[bot]") {
		return a.Login + "[bot]"
	}
	return a.Login
}

// reviewNodes and commentNodes are a PR's reviews and conversation
// comments as the queries ask for them (the Meta fragment's fields).
type reviewNodes struct {
	Nodes []struct {
		State       string `json:"state"`
		Author      *actor `json:"author"`
		Editor      *actor `json:"editor"`
		Association string `json:"authorAssociation"`
		SubmittedAt string `json:"submittedAt"`
		Body        string `json:"body"`
		URL         string `json:"url"`
	} `json:"nodes"`
}

type commentNodes struct {
	Nodes []struct {
		DatabaseID  string `json:"fullDatabaseId"` // a BigInt, sent as a string
		Author      *actor `json:"author"`
		Editor      *actor `json:"editor"`
		Association string `json:"authorAssociation"`
		Body        string `json:"body"`
		URL         string `json:"url"`
		CreatedAt   string `json:"createdAt"`
	} `json:"nodes"`
}

// list is the reviews, each with who last wrote its body.
func (n reviewNodes) list() []Review {
	var out []Review
	for _, r := range n.Nodes {
		rv := Review{State: r.State, Author: r.Author.String(), Association: r.Association, SubmittedAt: r.SubmittedAt, Body: r.Body, URL: r.URL}
		if w := writer(r.Author, r.Editor); w != rv.Author {
			rv.EditedBy = w
		}
		out = append(out, rv)
	}
	return out
}

// list is the comments, each by who last wrote its body.
func (n commentNodes) list() []Comment {
	var out []Comment
	for _, c := range n.Nodes {
		id, _ := strconv.ParseInt(c.DatabaseID, 10, 64) // 0 when GitHub sends none
		out = append(out, Comment{ID: id, URL: c.URL, Body: c.Body, Author: writer(c.Author, c.Editor), Association: c.Association, Created: c.CreatedAt})
	}
	return out
}

type prResponse struct {
	Viewer     *login `json:"viewer"`
	Repository *struct {
		PullRequest *struct {
			Number            int    `json:"number"`
			Title             string `json:"title"`
			Body              string `json:"body"`
			URL               string `json:"url"`
			State             string `json:"state"`
			IsDraft           bool   `json:"isDraft"`
			Author            *login `json:"author"`
			HeadRefName       string `json:"headRefName"`
			HeadRefOid        string `json:"headRefOid"`
			BaseRefName       string `json:"baseRefName"`
			BaseRefOid        string `json:"baseRefOid"`
			IsCrossRepository bool   `json:"isCrossRepository"`
			HeadRepository    *struct {
				NameWithOwner    string `json:"nameWithOwner"`
				ViewerPermission string `json:"viewerPermission"`
			} `json:"headRepository"`
			Additions               int `json:"additions"`
			Deletions               int `json:"deletions"`
			ChangedFiles            int `json:"changedFiles"`
			ClosingIssuesReferences struct {
				Nodes []IssueRef `json:"nodes"`
			} `json:"closingIssuesReferences"`
			Reviews  reviewNodes  `json:"reviews"`
			Comments commentNodes `json:"comments"`
			Files    *struct {
				PageInfo pageInfo      `json:"pageInfo"`
				Nodes    []ChangedFile `json:"nodes"`
			} `json:"files"`
			BaseRef *struct {
				Target *struct {
					OID       string    `json:"oid"`
					Policy    *blobFile `json:"policy"`
					Guide     *blobFile `json:"guide"`
					Learnings *blobFile `json:"learnings"`
				} `json:"target"`
			} `json:"baseRef"`
			ReviewThreads *struct {
				PageInfo pageInfo `json:"pageInfo"`
				Nodes    []struct {
					ID         string `json:"id"`
					IsResolved bool   `json:"isResolved"`
					ResolvedBy *login `json:"resolvedBy"`
					IsOutdated bool   `json:"isOutdated"`
					Path       string `json:"path"`
					Line       *int   `json:"line"`
					Comments   struct {
						Nodes []struct {
							ThreadComment
							Author *actor `json:"author"`
							Editor *actor `json:"editor"`
						} `json:"nodes"`
					} `json:"comments"`
				} `json:"nodes"`
			} `json:"reviewThreads"`
		} `json:"pullRequest"`
	} `json:"repository"`
}

// PullRequest reads a PR's context: metadata, linked issues, files, reviews
// and review threads. Usually one request; a PR with more than 100 files or
// threads costs one more per page, at most maxPages pages of each.
func (c *Client) PullRequest(ctx context.Context, repo Repo, number int) (*PullRequest, error) {
	what := fmt.Sprintf("PR #%d", number)
	pr := &PullRequest{}
	vars := map[string]any{"owner": repo.Owner, "name": repo.Name, "number": number,
		"meta": true, "files": true, "threads": true, "filesAfter": nil, "threadsAfter": nil}
	for filePages, threadPages := 0, 0; vars["files"] == true || vars["threads"] == true; {
		var resp prResponse
		if err := c.gql.DoWithContext(ctx, prQuery, vars, &resp); err != nil {
			return nil, c.explain(err, what, repo)
		}
		if resp.Repository == nil || resp.Repository.PullRequest == nil {
			return nil, &notFoundError{What: what, Repo: repo}
		}
		p := resp.Repository.PullRequest
		if vars["meta"] == true {
			if resp.Viewer != nil {
				pr.Viewer = resp.Viewer.Login
			}
			pr.Number, pr.Title, pr.Body, pr.URL, pr.State, pr.IsDraft = p.Number, p.Title, p.Body, p.URL, p.State, p.IsDraft
			if p.Author != nil {
				pr.Author = p.Author.Login
			}
			pr.HeadRefName, pr.HeadRefOid, pr.BaseRefName, pr.BaseRefOid = p.HeadRefName, p.HeadRefOid, p.BaseRefName, p.BaseRefOid
			pr.IsCrossRepository = p.IsCrossRepository
			if p.HeadRepository != nil {
				pr.HeadRepository, pr.ViewerPermission = p.HeadRepository.NameWithOwner, p.HeadRepository.ViewerPermission
			}
			pr.Additions, pr.Deletions, pr.ChangedFiles = p.Additions, p.Deletions, p.ChangedFiles
			pr.ClosingIssues = p.ClosingIssuesReferences.Nodes
			pr.Reviews, pr.Comments = p.Reviews.list(), p.Comments.list()
			if p.BaseRef != nil && p.BaseRef.Target != nil {
				t := p.BaseRef.Target
				pr.BasePolicy, pr.BaseGuide, pr.BaseLearnings = t.Policy.policyFile(t.OID), t.Guide.policyFile(t.OID), t.Learnings.policyFile(t.OID)
			}
			vars["meta"] = false
		}
		if p.Files == nil {
			vars["files"] = false
		}
		if p.ReviewThreads == nil {
			vars["threads"] = false
		}
		if vars["files"] == true {
			pr.Files = append(pr.Files, p.Files.Nodes...)
			filePages++
			vars["files"], vars["filesAfter"] = p.Files.PageInfo.HasNextPage && filePages < maxPages, p.Files.PageInfo.EndCursor
			pr.FilesTruncated = p.Files.PageInfo.HasNextPage && filePages >= maxPages
		}
		if vars["threads"] == true {
			for _, t := range p.ReviewThreads.Nodes {
				th := ReviewThread{ID: t.ID, IsResolved: t.IsResolved, IsOutdated: t.IsOutdated, Path: t.Path, Line: t.Line}
				if t.IsResolved && t.ResolvedBy != nil {
					th.ResolvedBy = t.ResolvedBy.Login
				}
				for _, cm := range t.Comments.Nodes {
					tc := cm.ThreadComment
					tc.Author = writer(cm.Author, cm.Editor)
					th.Comments = append(th.Comments, tc)
				}
				pr.Threads = append(pr.Threads, th)
			}
			threadPages++
			vars["threads"], vars["threadsAfter"] = p.ReviewThreads.PageInfo.HasNextPage && threadPages < maxThreadPages, p.ReviewThreads.PageInfo.EndCursor
			pr.ThreadsTruncated = p.ReviewThreads.PageInfo.HasNextPage && threadPages >= maxThreadPages
		}
	}
	return pr, nil
}
