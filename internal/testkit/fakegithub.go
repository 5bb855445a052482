package testkit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
)

// GitHub is a TLS fake of the GitHub API (REST under /api/v3, GraphQL at
// /api/graphql) as GitHub Enterprise serves it, so that go-gh reaches it
// through GH_HOST=127.0.0.1:PORT. It keeps state (comments, reviews), reads
// head oids from a bare git remote, injects faults, logs every request and
// fails the test on any GraphQL document GitHub's schema would reject.
type GitHub struct {
	Token    string // the only token accepted
	Login    string // the token's user: GraphQL's viewer and the author of what the tool posts
	CertFile string // PEM of the server's certificate, for SSL_CERT_FILE

	t   T
	srv *httptest.Server

	mu       sync.Mutex
	prs      map[string]*PR // "owner/repo#n"
	issues   map[string]*Issue
	comments map[string][]PostedComment
	reviews  map[string][]PostedReview
	faults   []*Fault
	log      []Request
	nextID   int64
	perms    map[string]string // "owner/repo login" (login lower-cased) → role

	releases map[string][]*release // by repository; see releases.go
	assets   map[int64]asset

	checkRuns     []*CheckRun // see checkruns.go
	checksRefused int

	alerts        []*CodeScanningAlert // see codescanning.go
	alertsRefused int

	remotes map[string]string   // repository → its bare remote, beside its PRs' (SetRemote)
	cats    map[string]*catFile // bare remote → its cat-file (catFileOf); nil: none could start
}

// PR is a pull request as the fake serves it. Zero fields get defaults.
type PR struct {
	Number            int
	Title, Body       string
	Author            string // default "octocat"
	State             string // default OPEN
	IsDraft           bool
	HeadRef, BaseRef  string // default "feature", "main"
	HeadOID, BaseOID  string // default: read from Remote, else fixed values
	Remote            string // bare git repository holding HeadRef and BaseRef
	IsCrossRepository bool
	HeadRepo          string   // default the PR's repository
	Permission        string   // viewerPermission on the head repo; default WRITE
	Diff              string   // the unified diff
	DiffStatus        int      // non-zero: answer the diff request with this status (406: too large)
	Files             []File   // default: parsed from Diff
	ClosingIssues     []int    // numbers of issues added with AddIssue
	Commits           []string // the messages of its commits, oldest first
	Reviews           []Review
	Threads           []Thread
	// Updated is when the PR last changed (GraphQL updatedAt); default:
	// its newest review's or comment's time.
	Updated string
}

// File is a changed file of a PR.
type File struct {
	Path                 string
	Additions, Deletions int
	ChangeType           string // ADDED, MODIFIED, DELETED, RENAMED
	Patch                string // the hunks, as the REST files endpoint gives them
}

// Issue is an issue of the fake repository.
type Issue struct {
	Number      int
	Title, Body string
}

// Review is a submitted review (the consensus reads these). The reviews
// the tool posts join them, by the fake's Login as a COLLABORATOR.
type Review struct {
	State, Login, Association, Body, URL, At string
	Editor                                   string // who last edited the body, when not its author
}

// postedAt is the time the fake gives what it stored as id: ids grow, and
// so do the times, as on GitHub.
func postedAt(id int64) string {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(id) * time.Second).Format(time.RFC3339)
}

// reviewStates maps a posted review's event to the state GitHub lists.
var reviewStates = map[string]string{"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}

// Thread is a review thread; ID defaults to a unique node id. The
// comments of the reviews the tool posts become threads too.
type Thread struct {
	ID       string
	Resolved bool
	// ResolvedBy is the login that resolved it (GraphQL resolvedBy); a
	// resolved thread without one was resolved by its first comment's
	// author.
	ResolvedBy string
	Comments   []ThreadComment
}

// resolver is the login GitHub names as th's resolver; "" while open.
func (th Thread) resolver() string {
	switch {
	case !th.Resolved:
		return ""
	case th.ResolvedBy != "" || len(th.Comments) == 0:
		return th.ResolvedBy
	}
	return th.Comments[0].Login
}

// ThreadComment is one comment of a thread; ID defaults to a unique node id.
type ThreadComment struct {
	ID, Body, Login, Association, Path string
	Line                               int // 0: null
	// DatabaseID is its number (fullDatabaseId); default: derived from ID.
	DatabaseID string
}

// databaseID is c's number as GitHub gives it: DatabaseID, else a stable
// number made from its node id.
func (c ThreadComment) databaseID() string {
	if c.DatabaseID != "" {
		return c.DatabaseID
	}
	h := fnv.New32a()
	h.Write([]byte(c.ID))
	return strconv.FormatUint(uint64(h.Sum32())+1000, 10)
}

// PostedComment and PostedReview are what the tool posted (and, through
// AddComment, what others posted).
type PostedComment struct {
	ID          int64
	Body        string
	Login       string // the author
	Association string // the author's; "" is COLLABORATOR
	Editor      string // who last edited the body, when not its author (EditComment)
}
type PostedReview struct {
	ID          int64
	Event, Body string
	Comments    []PostedReviewComment
}

// PostedReviewComment is an inline comment of a posted review, as sent.
type PostedReviewComment struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	StartLine int    `json:"start_line"`
	Side      string `json:"side"`
	Body      string `json:"body"`
}

// Request is one logged request.
type Request struct {
	Kind   string // graphql, diff, pr, pr-edit, files, commits, comment, comment-edit, comments, review, issue, contents, permission, tree, release, asset, download, tags, check-run, check-run-edit, check-runs, check-annotations, code-scanning, git, unknown
	Method string
	Path   string
	Status int
	Body   string
}

// Fault makes the next Times requests of Kind fail. Zero Times means once.
type Fault struct {
	Kind       string
	Status     int           // HTTP status to answer
	RetryAfter string        // Retry-After header value
	Delay      time.Duration // wait before answering (or before the fault)
	Drop       bool          // close the connection without an answer
	Garbage    bool          // answer 200 with a body that is not JSON
	Huge       int64         // answer 200 with a valid JSON body of about this many bytes
	// Apply serves the request as usual (a comment is posted) and then
	// answers Status (default 502) anyway, after Delay: the write whose
	// outcome the client cannot know.
	Apply bool
	Times int
}

// Login is the fake GitHub's user for its token, unless a test sets GitHub.Login.
const Login = "ocdx-bot"

// NewGitHub starts a fake GitHub for the test; it stops when the test ends.
func NewGitHub(t T) *GitHub {
	t.Helper()
	g := &GitHub{Token: "ghs_fakeToken0123456789abcdefghij", Login: Login, t: t,
		prs: map[string]*PR{}, issues: map[string]*Issue{},
		comments: map[string][]PostedComment{}, reviews: map[string][]PostedReview{}, nextID: 1000}
	g.srv = NewTLSServer(t, http.HandlerFunc(g.serve))
	if g.CertFile = trustedCert; g.CertFile != "" {
		return g // the process's own, which every fake serves
	}
	g.CertFile = filepath.Join(t.TempDir(), "fake-github-ca.pem")
	pemBytes, err := fakeCertPEM()
	if err == nil {
		err = os.WriteFile(g.CertFile, pemBytes, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Host is the fake's host:port, the value for GH_HOST.
func (g *GitHub) Host() string { return strings.TrimPrefix(g.srv.URL, "https://") }

// Configure points env at the fake: GH_HOST, GH_ENTERPRISE_TOKEN,
// SSL_CERT_FILE and GH_REPO=repo.
func (g *GitHub) Configure(e *Env, repo string) {
	e.Set("GH_HOST", g.Host())
	e.Set("GH_ENTERPRISE_TOKEN", g.Token)
	e.Set("SSL_CERT_FILE", g.CertFile)
	e.Set("GH_REPO", repo)
}

// AddPR adds a pull request to repo ("owner/name").
func (g *GitHub) AddPR(repo string, pr PR) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if pr.State == "" {
		pr.State = "OPEN"
	}
	if pr.Author == "" {
		pr.Author = "octocat"
	}
	if pr.HeadRef == "" {
		pr.HeadRef = "feature"
	}
	if pr.BaseRef == "" {
		pr.BaseRef = "main"
	}
	if pr.HeadRepo == "" {
		pr.HeadRepo = repo
	}
	if pr.Permission == "" {
		pr.Permission = "WRITE"
	}
	if pr.Files == nil {
		pr.Files = ParseDiff(pr.Diff)
	}
	for i := range pr.Threads {
		if pr.Threads[i].ID == "" {
			g.nextID++
			pr.Threads[i].ID = fmt.Sprintf("PRRT_%d", g.nextID)
		}
		for j := range pr.Threads[i].Comments {
			if pr.Threads[i].Comments[j].ID == "" {
				g.nextID++
				pr.Threads[i].Comments[j].ID = fmt.Sprintf("PRRC_%d", g.nextID)
			}
		}
	}
	g.prs[fmt.Sprintf("%s#%d", repo, pr.Number)] = &pr
}

// AddIssue adds an issue to repo.
func (g *GitHub) AddIssue(repo string, is Issue) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.issues[fmt.Sprintf("%s#%d", repo, is.Number)] = &is
}

// AddComment adds a comment to a PR's conversation as login, as another
// user of GitHub would.
func (g *GitHub) AddComment(repo string, number int, login, body string) {
	g.AddCommentBy(repo, number, login, "", body)
}

// AddCommentBy adds a conversation comment by login whose association with
// the repository is association ("" is COLLABORATOR).
func (g *GitHub) AddCommentBy(repo string, number int, login, association, body string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextID++
	key := fmt.Sprintf("%s#%d", repo, number)
	g.comments[key] = append(g.comments[key], PostedComment{ID: g.nextID, Body: body, Login: login, Association: association})
}

// EditComment makes login the last editor of the comment id on a PR,
// with body as its text, as someone with write permission can edit
// another's comment on GitHub.
func (g *GitHub) EditComment(repo string, number int, id int64, login, body string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	cs := g.comments[fmt.Sprintf("%s#%d", repo, number)]
	for i := range cs {
		if cs[i].ID == id {
			cs[i].Editor, cs[i].Body = login, body
		}
	}
}

// SetPermission gives login the role (admin, maintain, write, triage,
// read, none) on repo, as the collaborators permission endpoint answers
// it. A login without one is unknown to GitHub there: 404.
func (g *GitHub) SetPermission(repo, login, role string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.perms == nil {
		g.perms = map[string]string{}
	}
	g.perms[repo+" "+strings.ToLower(login)] = role
}

// SetViewerPermission sets the viewer's permission on PR number's head
// repository (READ, WRITE…), as a later query reads it.
func (g *GitHub) SetViewerPermission(repo string, number int, perm string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.prs[fmt.Sprintf("%s#%d", repo, number)].Permission = perm
}

// Fail queues a fault.
func (g *GitHub) Fail(f Fault) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f.Times == 0 {
		f.Times = 1
	}
	g.faults = append(g.faults, &f)
}

// ClearFaults drops the faults no request has taken yet.
func (g *GitHub) ClearFaults() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.faults = nil
}

// Requests returns the request log.
func (g *GitHub) Requests() []Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Request(nil), g.log...)
}

// Count returns how many requests of kind were received ("" counts all).
func (g *GitHub) Count(kind string) int {
	n := 0
	for _, r := range g.Requests() {
		if kind == "" || r.Kind == kind {
			n++
		}
	}
	return n
}

// Comments returns the comments posted on a PR.
func (g *GitHub) Comments(repo string, number int) []PostedComment {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]PostedComment(nil), g.comments[fmt.Sprintf("%s#%d", repo, number)]...)
}

// Reviews returns the reviews posted on a PR.
func (g *GitHub) Reviews(repo string, number int) []PostedReview {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]PostedReview(nil), g.reviews[fmt.Sprintf("%s#%d", repo, number)]...)
}

var (
	rePull     = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/pulls/(\d+)$`)
	rePullSub  = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/pulls/(\d+)/(files|reviews|commits)$`)
	reComment  = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/issues/comments/(\d+)$`)
	reIssue    = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/issues/(\d+)$`)
	reComments = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/issues/(\d+)/comments$`)
	reContents = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/contents/(.+)$`)
	reTree     = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/git/trees/([^/]+)$`)
	rePerm     = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/collaborators/([^/]+)/permission$`)
)

func kindOf(r *http.Request) string {
	p := r.URL.Path
	switch {
	case p == "/api/graphql":
		return "graphql"
	case rePull.MatchString(p):
		if r.Method == http.MethodPatch {
			return "pr-edit"
		}
		if strings.Contains(r.Header.Get("Accept"), "diff") {
			return "diff"
		}
		return "pr"
	case rePullSub.MatchString(p):
		if m := rePullSub.FindStringSubmatch(p); m[3] != "reviews" {
			return m[3]
		}
		return "review"
	case reComment.MatchString(p):
		return "comment-edit"
	case reComments.MatchString(p):
		if r.Method == http.MethodPost {
			return "comment"
		}
		return "comments"
	case reIssue.MatchString(p):
		return "issue"
	case reContents.MatchString(p):
		return "contents"
	case reTree.MatchString(p):
		return "tree"
	case rePerm.MatchString(p):
		return "permission"
	}
	if k := releaseKind(p); k != "" {
		return k
	}
	if k := checkRunKind(p); k != "" {
		return k
	}
	if reAlerts.MatchString(p) {
		return "code-scanning"
	}
	if reGitHTTP.MatchString(p) {
		return "git"
	}
	return "unknown"
}

// recorder captures the status for the log.
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(s int) { r.status = s; r.ResponseWriter.WriteHeader(s) }

func (g *GitHub) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	kind := kindOf(r)
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	// The log is in the order requests arrived: a dropped request ends
	// after the client may already have retried it.
	g.mu.Lock()
	i := len(g.log)
	g.log = append(g.log, Request{Kind: kind, Method: r.Method, Path: r.URL.RequestURI(), Body: string(body)})
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.log[i].Status = rec.status
		g.mu.Unlock()
	}()
	if kind == "git" {
		r.Body = io.NopCloser(bytes.NewReader(body)) // read above, for the log
		g.serveGit(rec, r)
		return
	}
	if r.Header.Get("Authorization") != "token "+g.Token {
		writeJSON(rec, http.StatusUnauthorized, map[string]any{"message": "Bad credentials"})
		return
	}
	if f := g.takeFault(kind); f != nil {
		if f.Apply {
			g.route(httptest.NewRecorder(), r, kind, body)
		}
		if f.Delay > 0 {
			select {
			case <-time.After(f.Delay):
			case <-r.Context().Done():
				return
			}
		}
		switch {
		case f.Drop:
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
					rec.status = 0
					return
				}
			}
		case f.Huge > 0:
			rec.Header().Set("Content-Type", "application/json")
			rec.WriteHeader(http.StatusOK)
			io.WriteString(rec, `{"data":null,"padding":"`)
			chunk := strings.Repeat("a", 64<<10)
			for n := int64(0); n < f.Huge; n += int64(len(chunk)) {
				if _, err := io.WriteString(rec, chunk); err != nil {
					return // the client hung up
				}
			}
			io.WriteString(rec, `"}`)
			return
		case f.Garbage:
			rec.Header().Set("Content-Type", "application/json")
			rec.WriteHeader(http.StatusOK)
			io.WriteString(rec, "<html>not json")
			return
		case f.Apply:
			writeJSON(rec, cmp.Or(f.Status, http.StatusBadGateway), map[string]any{"message": http.StatusText(cmp.Or(f.Status, http.StatusBadGateway))})
			return
		case f.Status != 0:
			if f.RetryAfter != "" {
				rec.Header().Set("Retry-After", f.RetryAfter)
			}
			writeJSON(rec, f.Status, map[string]any{"message": http.StatusText(f.Status)})
			return
		}
	}
	g.route(rec, r, kind, body)
}

func (g *GitHub) takeFault(kind string) *Fault {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, f := range g.faults {
		if f.Kind == kind {
			f.Times--
			if f.Times <= 0 {
				g.faults = append(g.faults[:i], g.faults[i+1:]...)
			}
			return f
		}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found"})
}

func (g *GitHub) route(w http.ResponseWriter, r *http.Request, kind string, body []byte) {
	switch kind {
	case "graphql":
		g.graphql(w, body)
	case "permission":
		g.permission(w, r)
	case "diff", "pr":
		m := rePull.FindStringSubmatch(r.URL.Path)
		pr := g.pr(m[1], m[2])
		if pr == nil {
			notFound(w)
			return
		}
		if kind == "pr" {
			writeJSON(w, http.StatusOK, map[string]any{"number": pr.Number, "state": strings.ToLower(pr.State),
				"head": map[string]any{"ref": pr.HeadRef, "sha": g.headOID(pr)}, "base": map[string]any{"ref": pr.BaseRef, "sha": g.baseOID(pr)}})
			return
		}
		if pr.DiffStatus != 0 {
			writeJSON(w, pr.DiffStatus, map[string]any{"message": "Sorry, the diff exceeded the maximum number of files (300). Consider using 'List pull requests files' API or locally cloning the repository instead.",
				"errors": []map[string]any{{"resource": "PullRequest", "field": "diff", "code": "too_large"}}})
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, pr.Diff)
	case "files":
		m := rePullSub.FindStringSubmatch(r.URL.Path)
		pr := g.pr(m[1], m[2])
		if pr == nil {
			notFound(w)
			return
		}
		from, to := restPage(r, len(pr.Files))
		out := []map[string]any{}
		for i := from; i < to; i++ {
			f := pr.Files[i]
			out = append(out, map[string]any{"filename": f.Path, "status": strings.ToLower(f.ChangeType),
				"additions": f.Additions, "deletions": f.Deletions, "patch": f.Patch})
		}
		writeJSON(w, http.StatusOK, out)
	case "comment", "review":
		g.post(w, r, kind, body)
	case "comment-edit":
		g.editComment(w, r, body)
	case "pr-edit":
		g.editPR(w, r, body)
	case "commits":
		m := rePullSub.FindStringSubmatch(r.URL.Path)
		pr := g.pr(m[1], m[2])
		if pr == nil {
			notFound(w)
			return
		}
		out := []map[string]any{}
		for i, msg := range pr.Commits {
			out = append(out, map[string]any{"sha": fmt.Sprintf("%040x", i+1), "commit": map[string]any{"message": msg}})
		}
		writeJSON(w, http.StatusOK, out)
	case "comments":
		m := reComments.FindStringSubmatch(r.URL.Path)
		g.mu.Lock()
		list := g.comments[m[1]+"#"+m[2]]
		from, to := restPage(r, len(list))
		out := []map[string]any{}
		for i := from; i < to; i++ {
			c := list[i]
			out = append(out, map[string]any{"id": c.ID, "body": c.Body, "html_url": g.commentURL(m[1], m[2], c.ID),
				"user": map[string]any{"login": c.Login}, "created_at": "2026-01-01T00:00:00Z"})
		}
		g.mu.Unlock()
		writeJSON(w, http.StatusOK, out)
	case "contents", "tree":
		g.gitObjects(w, r, kind)
	case "release", "asset", "tags", "download":
		g.serveReleases(w, r, kind)
	case "check-run", "check-run-edit", "check-runs", "check-annotations":
		g.serveCheckRuns(w, r, kind, body)
	case "code-scanning":
		g.serveAlerts(w, r)
	case "issue":
		m := reIssue.FindStringSubmatch(r.URL.Path)
		g.mu.Lock()
		is := g.issues[m[1]+"#"+m[2]]
		g.mu.Unlock()
		if is == nil {
			notFound(w)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"number": is.Number, "title": is.Title, "body": is.Body,
			"html_url": fmt.Sprintf("https://%s/%s/issues/%d", g.Host(), m[1], is.Number), "state": "open"})
	default:
		notFound(w)
	}
}

func (g *GitHub) commentURL(repo, number string, id int64) string {
	return fmt.Sprintf("https://%s/%s/pull/%s#issuecomment-%d", g.Host(), repo, number, id)
}

func (g *GitHub) post(w http.ResponseWriter, r *http.Request, kind string, body []byte) {
	var in struct {
		Body, Event string
		Comments    []PostedReviewComment
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Body == "" && kind == "comment" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed"})
		return
	}
	if len([]rune(in.Body)) >= 65536 {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed: body is too long (maximum is 65536 characters)"})
		return
	}
	re := reComments
	if kind == "review" {
		re = rePullSub
	}
	m := re.FindStringSubmatch(r.URL.Path)
	if g.pr(m[1], m[2]) == nil {
		notFound(w)
		return
	}
	key := m[1] + "#" + m[2]
	if kind == "review" {
		// GitHub refuses the whole review when one comment is off the diff.
		lines := diffLines(g.pr(m[1], m[2]).Diff)
		for _, c := range in.Comments {
			if !lines.has(c.Path, c.StartLine, c.Line, c.Side) {
				writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Unprocessable Entity",
					"errors": []string{"Pull request review thread line must be part of the diff"}, "status": "422"})
				return
			}
		}
	}
	g.mu.Lock()
	g.nextID++
	id := g.nextID
	url := g.commentURL(m[1], m[2], id)
	if kind == "review" {
		url = fmt.Sprintf("https://%s/%s/pull/%s#pullrequestreview-%d", g.Host(), m[1], m[2], id)
	}
	if kind == "comment" {
		g.comments[key] = append(g.comments[key], PostedComment{ID: id, Body: in.Body, Login: g.Login})
	} else {
		g.reviews[key] = append(g.reviews[key], PostedReview{ID: id, Event: in.Event, Body: in.Body, Comments: in.Comments})
		if pr := g.prs[key]; pr != nil {
			pr.Reviews = append(pr.Reviews, Review{State: reviewStates[in.Event], Login: g.Login, Association: "COLLABORATOR", Body: in.Body, URL: url, At: postedAt(id)})
			for _, c := range in.Comments {
				g.nextID++
				th := Thread{ID: fmt.Sprintf("PRRT_%d", g.nextID)}
				th.Comments = append(th.Comments, ThreadComment{ID: fmt.Sprintf("PRRC_%d", g.nextID), Body: c.Body, Login: g.Login, Association: "COLLABORATOR", Path: c.Path, Line: c.Line})
				pr.Threads = append(pr.Threads, th)
			}
		}
	}
	g.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"id": id, "body": in.Body, "html_url": url, "state": in.Event})
}

// editComment replaces a conversation comment's body, as PATCH
// /repos/{owner}/{repo}/issues/comments/{id} does: only the author may.
func (g *GitHub) editComment(w http.ResponseWriter, r *http.Request, body []byte) {
	var in struct{ Body *string }
	if err := json.Unmarshal(body, &in); err != nil || in.Body == nil || *in.Body == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed"})
		return
	}
	m := reComment.FindStringSubmatch(r.URL.Path)
	id, _ := strconv.ParseInt(m[2], 10, 64)
	g.mu.Lock()
	defer g.mu.Unlock()
	for key, list := range g.comments {
		repo, number, _ := strings.Cut(key, "#")
		for i, c := range list {
			if c.ID != id || repo != m[1] {
				continue
			}
			if c.Login != g.Login {
				writeJSON(w, http.StatusForbidden, map[string]any{"message": "Must have admin rights to Repository."})
				return
			}
			list[i].Body = *in.Body
			writeJSON(w, http.StatusOK, map[string]any{"id": id, "body": *in.Body, "html_url": g.commentURL(repo, number, id)})
			return
		}
	}
	notFound(w)
}

// editPR sets a PR's body, as PATCH /repos/{owner}/{repo}/pulls/{n} with
// a body does.
func (g *GitHub) editPR(w http.ResponseWriter, r *http.Request, body []byte) {
	var in struct{ Body *string }
	if err := json.Unmarshal(body, &in); err != nil || in.Body == nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed"})
		return
	}
	m := rePull.FindStringSubmatch(r.URL.Path)
	g.mu.Lock()
	defer g.mu.Unlock()
	pr := g.prs[m[1]+"#"+m[2]]
	if pr == nil {
		notFound(w)
		return
	}
	pr.Body = *in.Body
	writeJSON(w, http.StatusOK, map[string]any{"number": pr.Number, "body": pr.Body})
}

// PRBody is a PR's body as it stands (an edit through the API changes it).
func (g *GitHub) PRBody(repo string, number int) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.prs[fmt.Sprintf("%s#%d", repo, number)].Body
}

func (g *GitHub) pr(repo, number string) *PR {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.prs[repo+"#"+number]
}

func (g *GitHub) headOID(pr *PR) string { return g.oid(pr.Remote, pr.HeadRef, pr.HeadOID) }
func (g *GitHub) baseOID(pr *PR) string { return g.oid(pr.Remote, pr.BaseRef, pr.BaseOID) }

// oid reads ref from the bare remote, so that a push moves the PR's head.
func (g *GitHub) oid(remote, ref, fixed string) string {
	if fixed != "" || remote == "" {
		if fixed == "" {
			return strings.Repeat("0", 40)
		}
		return fixed
	}
	if oid := readRef(remote, "refs/heads/"+ref); oid != "" {
		return oid
	}
	out, err := exec.Command("git", "--git-dir", remote, "rev-parse", "refs/heads/"+ref).Output()
	if err != nil {
		g.t.Errorf("fake github: reading %s from %s: %v", ref, remote, err)
		return ""
	}
	return strings.TrimSpace(string(out))
}

// readRef reads a branch of a bare repository as git stores it, a loose
// ref file or a line of packed-refs, without starting git (the fake reads
// the PR's head on every query); "" when it is stored otherwise.
func readRef(gitDir, name string) string {
	if b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(name))); err == nil {
		if oid := strings.TrimSpace(string(b)); len(oid) == 40 || len(oid) == 64 {
			return oid
		}
		return ""
	}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(packed), "\n") {
		if oid, ref, ok := strings.Cut(l, " "); ok && ref == name && (len(oid) == 40 || len(oid) == 64) {
			return oid
		}
	}
	return ""
}

func (g *GitHub) graphql(w http.ResponseWriter, body []byte) {
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		g.t.Errorf("fake github: GraphQL request is not JSON: %v", err)
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
		return
	}
	_, op, err := ValidateQuery(req.Query, req.Variables)
	if err != nil {
		g.t.Errorf("fake github: GitHub's schema rejects this GraphQL document: %v\n%s", err, req.Query)
		writeJSON(w, http.StatusOK, map[string]any{"errors": []map[string]any{{"message": err.Error()}}})
		return
	}
	root := g.root()
	if op.Operation == ast.Mutation {
		root = g.mutations()
	}
	data, errs := execute(op, root, req.Variables)
	resp := map[string]any{"data": data}
	if len(errs) > 0 {
		resp["errors"] = errs
	}
	writeJSON(w, http.StatusOK, resp)
}

// root is the GraphQL Query object over the fake's state.
func (g *GitHub) root() map[string]any {
	return map[string]any{
		"viewer": map[string]any{"login": g.Login},
		"repository": resolver(func(args map[string]any) any {
			repo := fmt.Sprintf("%s/%s", args["owner"], args["name"])
			return map[string]any{
				"id":               repoID(repo),
				"nameWithOwner":    repo,
				"defaultBranchRef": resolver(func(map[string]any) any { return g.defaultBranch(repo) }),
				"pullRequests":     resolver(func(a map[string]any) any { return g.pullRequests(repo, a) }),
				"pullRequest": resolver(func(a map[string]any) any {
					n, _ := asInt(a["number"])
					pr := g.pr(repo, strconv.Itoa(n))
					if pr == nil {
						return gqlError{Type: "NOT_FOUND", Message: fmt.Sprintf("Could not resolve to a PullRequest with the number of %d.", n)}
					}
					return g.prObject(repo, pr)
				}),
			}
		}),
	}
}

// pullRequests is the repository's pullRequests connection, filtered by
// headRefName and states, in number order, or by updatedAt when orderBy
// asks for UPDATED_AT.
func (g *GitHub) pullRequests(repo string, args map[string]any) conn {
	g.mu.Lock()
	var prs []*PR
	for key, pr := range g.prs {
		if !strings.HasPrefix(key, repo+"#") {
			continue
		}
		if h, ok := args["headRefName"].(string); ok && h != pr.HeadRef {
			continue
		}
		if states, ok := args["states"].([]any); ok && len(states) > 0 && !slices.Contains(states, any(pr.State)) {
			continue
		}
		prs = append(prs, pr)
	}
	updated := map[*PR]string{}
	for _, pr := range prs {
		updated[pr] = g.updatedAt(repo, pr)
	}
	g.mu.Unlock()
	sort.Slice(prs, func(i, j int) bool { return prs[i].Number < prs[j].Number })
	if o, ok := args["orderBy"].(map[string]any); ok && o["field"] == "UPDATED_AT" {
		// The most recently updated first (or last), as GitHub orders;
		// among equal times, by number.
		desc := o["direction"] == "DESC"
		sort.SliceStable(prs, func(i, j int) bool {
			if desc {
				return updated[prs[i]] > updated[prs[j]]
			}
			return updated[prs[i]] < updated[prs[j]]
		})
	}
	out := conn{}
	for _, pr := range prs {
		out = append(out, g.prObject(repo, pr))
	}
	return out
}

// prObject is pr as a PullRequest object for the query executor. Its
// connections are made when a query asks for them, under the lock: a PR's
// thousands of review threads cost nothing to a query of its head.
func (g *GitHub) prObject(repo string, pr *PR) map[string]any {
	head, base := g.headOID(pr), g.baseOID(pr)
	lazy := func(make func() conn) resolver {
		return func(map[string]any) any {
			g.mu.Lock()
			defer g.mu.Unlock()
			return make()
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	adds, dels := 0, 0
	for _, f := range pr.Files {
		adds, dels = adds+f.Additions, dels+f.Deletions
	}
	return map[string]any{
		"number": pr.Number, "title": pr.Title, "body": pr.Body, "state": pr.State, "isDraft": pr.IsDraft,
		"updatedAt":   g.updatedAt(repo, pr),
		"url":         fmt.Sprintf("https://%s/%s/pull/%d", g.Host(), repo, pr.Number),
		"author":      map[string]any{"login": pr.Author},
		"headRefName": pr.HeadRef, "headRefOid": head, "baseRefName": pr.BaseRef, "baseRefOid": base,
		"isCrossRepository": pr.IsCrossRepository,
		"headRepository":    map[string]any{"nameWithOwner": pr.HeadRepo, "viewerPermission": pr.Permission},
		"additions":         adds, "deletions": dels, "changedFiles": len(pr.Files),
		"closingIssuesReferences": lazy(func() conn { return g.prIssues(repo, pr) }),
		"files":                   lazy(func() conn { return prFiles(pr) }),
		"reviews":                 lazy(func() conn { return prReviews(pr) }),
		"comments":                lazy(func() conn { return g.prComments(repo, pr) }),
		"reviewThreads": resolver(func(args map[string]any) any {
			g.mu.Lock()
			defer g.mu.Unlock()
			return pageOf(len(pr.Threads), args, func(i int) any { return g.threadNode(repo, pr, pr.Threads[i]) })
		}),
		"baseRef": g.refObject(pr.Remote, pr.BaseRef, base),
	}
}

// updatedAt is when pr last changed: Updated, else its newest review's or
// comment's time. The caller holds the lock.
func (g *GitHub) updatedAt(repo string, pr *PR) string {
	if pr.Updated != "" {
		return pr.Updated
	}
	const created = "2026-01-01T00:00:00Z" // what the fake says of a post without a time
	at := ""
	for _, rv := range pr.Reviews {
		at = max(at, cmp.Or(rv.At, created))
	}
	for _, c := range g.comments[fmt.Sprintf("%s#%d", repo, pr.Number)] {
		at = max(at, postedAt(c.ID))
	}
	return cmp.Or(at, created)
}

func prFiles(pr *PR) conn {
	files := conn{}
	for _, f := range pr.Files {
		ct := f.ChangeType
		if ct == "" {
			ct = "MODIFIED"
		}
		files = append(files, map[string]any{"path": f.Path, "additions": f.Additions, "deletions": f.Deletions, "changeType": ct})
	}
	return files
}

func (g *GitHub) prIssues(repo string, pr *PR) conn {
	issues := conn{}
	for _, n := range pr.ClosingIssues {
		if is := g.issues[fmt.Sprintf("%s#%d", repo, n)]; is != nil {
			issues = append(issues, map[string]any{"number": is.Number, "title": is.Title,
				"url": fmt.Sprintf("https://%s/%s/issues/%d", g.Host(), repo, is.Number)})
		}
	}
	return issues
}

func prReviews(pr *PR) conn {
	reviews := conn{}
	for _, rv := range pr.Reviews {
		at := rv.At
		if at == "" {
			at = "2026-01-01T00:00:00Z"
		}
		reviews = append(reviews, map[string]any{"state": rv.State, "author": map[string]any{"login": rv.Login}, "editor": editor(rv.Editor),
			"authorAssociation": rv.Association, "submittedAt": at, "body": rv.Body, "url": rv.URL})
	}
	return reviews
}

func (g *GitHub) prComments(repo string, pr *PR) conn {
	comments := conn{}
	cs := g.comments[fmt.Sprintf("%s#%d", repo, pr.Number)]
	for _, c := range cs[max(0, len(cs)-50):] {
		assoc := c.Association
		if assoc == "" {
			assoc = "COLLABORATOR"
		}
		comments = append(comments, map[string]any{"fullDatabaseId": strconv.FormatInt(c.ID, 10), "author": map[string]any{"login": c.Login}, "editor": editor(c.Editor), "authorAssociation": assoc, "body": c.Body,
			"url": g.commentURL(repo, strconv.Itoa(pr.Number), c.ID), "createdAt": postedAt(c.ID)})
	}
	return comments
}

// editor is a post's GraphQL editor: null when nobody else edited it.
func editor(login string) any {
	if login == "" {
		return nil
	}
	return map[string]any{"login": login}
}

// threadNode is th as a PullRequestReviewThread.
func (g *GitHub) threadNode(repo string, pr *PR, th Thread) map[string]any {
	comments := conn{}
	var path any
	var line any
	for i, c := range th.Comments {
		var l any
		if c.Line > 0 {
			l = c.Line
		}
		if i == 0 {
			path, line = c.Path, l
		}
		comments = append(comments, map[string]any{"id": c.ID, "fullDatabaseId": c.databaseID(), "body": c.Body,
			"author": map[string]any{"login": c.Login}, "authorAssociation": c.Association,
			"path": c.Path, "line": l, "createdAt": "2026-01-01T00:00:00Z", "url": "https://" + g.Host() + "/" + repo + "/pull/" + strconv.Itoa(pr.Number)})
	}
	var by any
	if r := th.resolver(); r != "" {
		by = map[string]any{"login": r}
	}
	return map[string]any{"id": th.ID, "isResolved": th.Resolved, "resolvedBy": by, "isOutdated": false, "path": path, "line": line, "comments": comments}
}

// refObject is a branch at commit oid, whose files (Commit.file) are read
// from the bare remote as GitHub reads them from the repository.
func (g *GitHub) refObject(remote, name, oid string) map[string]any {
	held := remote != "" && readRef(remote, "refs/heads/"+name) == oid // the remote has the commit
	file := resolver(func(args map[string]any) any {
		path, _ := args["path"].(string)
		if remote == "" {
			return nil
		}
		out, ok := g.gitAt(remote, "show", oid, held, oid+":"+path)
		if !ok {
			return nil // GitHub answers null for a path the commit does not have
		}
		return map[string]any{"path": path, "object": map[string]any{"oid": oid, "text": string(out), "isTruncated": false, "byteSize": len(out)}}
	})
	return map[string]any{"name": name, "target": map[string]any{"oid": oid, "file": file}}
}

// ParseDiff splits a unified diff into files with their patches and counts.
func ParseDiff(diff string) []File {
	var files []File
	var cur *File
	var patch []string
	flush := func() {
		if cur != nil {
			cur.Patch = strings.TrimRight(strings.Join(patch, "\n"), "\n")
			files = append(files, *cur)
		}
	}
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			flush()
			parts := strings.Fields(l)
			cur = &File{Path: strings.TrimPrefix(parts[len(parts)-1], "b/"), ChangeType: "MODIFIED"}
			patch = nil
		case cur == nil:
		case strings.HasPrefix(l, "new file mode"):
			cur.ChangeType = "ADDED"
		case strings.HasPrefix(l, "deleted file mode"):
			cur.ChangeType = "DELETED"
		case strings.HasPrefix(l, "rename from"):
			cur.ChangeType = "RENAMED"
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "index "):
		case strings.HasPrefix(l, "@@") || len(patch) > 0:
			patch = append(patch, l)
			if strings.HasPrefix(l, "+") {
				cur.Additions++
			} else if strings.HasPrefix(l, "-") {
				cur.Deletions++
			}
		}
	}
	flush()
	return files
}

// trustedCert is the CA file TrustFakeGitHub wrote, "" before: the fakes'
// CertFile then, rather than a file each.
var trustedCert string

// TrustFakeGitHub makes this process trust the fake GitHub's certificate
// (every fake of the process serves fakeCert) and keeps go-gh away from the developer's gh
// config. Call it from TestMain before any TLS connection: Go reads
// SSL_CERT_FILE once.
func TrustFakeGitHub() (cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "ocdx-cert-")
	if err != nil {
		return nil, err
	}
	pemBytes, err := fakeCertPEM()
	if err != nil {
		return nil, err
	}
	cert := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(cert, pemBytes, 0o600); err != nil {
		return nil, err
	}
	os.Setenv("SSL_CERT_FILE", cert)
	trustedCert = cert
	os.Setenv("GH_CONFIG_DIR", filepath.Join(dir, "gh"))
	return func() { os.RemoveAll(dir) }, nil
}

// remoteOf is the bare remote of repo (SetRemote), else of its PRs; ""
// when none has one.
func (g *GitHub) remoteOf(repo string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	remote := g.remotes[repo]
	if remote != "" {
		return remote
	}
	for key, pr := range g.prs {
		if strings.HasPrefix(key, repo+"#") && pr.Remote != "" {
			remote = pr.Remote
		}
	}
	return remote
}

// gitObjects serves the contents and trees endpoints from the bare remote of
// the repository's PRs, so reads at a commit see what was pushed.
func (g *GitHub) gitObjects(w http.ResponseWriter, r *http.Request, kind string) {
	re := reContents
	if kind == "tree" {
		re = reTree
	}
	m := re.FindStringSubmatch(r.URL.Path)
	remote := g.remoteOf(m[1])
	if remote == "" {
		notFound(w)
		return
	}
	if kind == "tree" {
		out, ok := g.gitAt(remote, "ls-tree", m[2], false, "-r", "--name-only", m[2])
		if !ok {
			notFound(w)
			return
		}
		tree := []map[string]any{}
		for _, p := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if p != "" {
				tree = append(tree, map[string]any{"path": p, "type": "blob"})
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"sha": m[2], "tree": tree, "truncated": false})
		return
	}
	ref := r.URL.Query().Get("ref")
	if ref == "" || !strings.Contains(r.Header.Get("Accept"), "raw") {
		writeJSON(w, http.StatusNotAcceptable, map[string]any{"message": "the fake serves raw contents at a ref only"})
		return
	}
	out, ok := g.gitAt(remote, "show", ref, false, ref+":"+m[2])
	if !ok {
		notFound(w)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.github.raw")
	w.Write(out)
}

// atCommit caches what gitAt read at a commit id. What a commit holds
// never changes and the tests share commits (NewRepo): the fake asks git
// once per file rather than on every query.
var atCommit sync.Map // command, commit, args → gitAnswer

type gitAnswer struct {
	out []byte
	ok  bool
}

var reCommitID = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// gitAt runs git command args (show or ls-tree) in the bare remote at rev,
// and reports its output and whether the path was there; a show is read
// through the remote's cat-file when it can answer. At a commit id the
// answer is cached, a missing path too when the remote holds the commit
// (held, or a loose object): git says "does not exist in", and cat-file
// "missing", of a commit it does not have as well.
func (g *GitHub) gitAt(remote, command, rev string, held bool, args ...string) ([]byte, bool) {
	key := strings.Join(append([]string{command, rev}, args...), "\x00")
	cache := reCommitID.MatchString(rev)
	if a, ok := atCommit.Load(key); cache && ok {
		return a.(gitAnswer).out, a.(gitAnswer).ok
	}
	if command == "show" {
		if out, found, answered := g.catFileOf(remote).blob(args[0]); answered {
			if cache && (found || held || looseObject(remote, rev)) {
				atCommit.Store(key, gitAnswer{out: out, ok: found})
			}
			return out, found
		}
	}
	var errOut bytes.Buffer
	c := exec.Command("git", append([]string{"--git-dir", remote, command}, args...)...)
	c.Stderr = &errOut
	out, err := c.Output()
	if err == nil && cache {
		atCommit.Store(key, gitAnswer{out: out, ok: true})
	} else if cache && strings.Contains(errOut.String(), "does not exist in") && (held || looseObject(remote, rev)) {
		atCommit.Store(key, gitAnswer{})
	}
	return out, err == nil
}

// looseObject reports whether the bare repository holds object id as a
// loose object (as a push of a few objects leaves it).
func looseObject(gitDir, id string) bool {
	_, err := os.Stat(filepath.Join(gitDir, "objects", id[:2], id[2:]))
	return err == nil
}

// permission answers GET /repos/{o}/{r}/collaborators/{user}/permission as
// GitHub does: "permission" folds maintain into write and triage into read;
// "role_name" is the role itself.
func (g *GitHub) permission(w http.ResponseWriter, r *http.Request) {
	m := rePerm.FindStringSubmatch(r.URL.Path)
	g.mu.Lock()
	role, ok := g.perms[m[1]+" "+strings.ToLower(m[2])]
	g.mu.Unlock()
	if !ok {
		notFound(w)
		return
	}
	base := map[string]string{"maintain": "write", "triage": "read"}[role]
	if base == "" {
		base = role
	}
	writeJSON(w, http.StatusOK, map[string]any{"permission": base, "role_name": role, "user": map[string]any{"login": m[2]}})
}
