package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cli/go-gh/v2/pkg/api"

	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// MaxAnnotationsPerRequest is how many annotations GitHub takes in one
// create or update of a check run; more go in further updates, which
// append to the ones already there.
const MaxAnnotationsPerRequest = 50

// Limits of a check run's output, in characters: GitHub refuses a summary
// or text of 65,536 or more, and an annotation's title over 255.
const (
	maxCheckSummary    = 65535 - 1
	maxAnnotationTitle = 255
	maxAnnotationText  = 16 << 10 // runes: GitHub's 64 KB, a rune taking up to four bytes
)

// CheckRun is a check run on a commit, as the checks API lists it.
type CheckRun struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	HeadSHA    string `json:"head_sha"`
	URL        string `json:"html_url"`
	Conclusion string `json:"conclusion"`
	Output     struct {
		AnnotationsCount int `json:"annotations_count"`
	} `json:"output"`
	App struct {
		Slug string `json:"slug"`
	} `json:"app"`
}

// MadeBy reports whether login (the token's, pr.Viewer) is the app that
// made the check run: an app's token acts as "<slug>[bot]". A check run of
// another app is never edited.
func (r CheckRun) MadeBy(login string) bool {
	return r.App.Slug != "" && strings.EqualFold(strings.TrimSuffix(login, "[bot]"), r.App.Slug)
}

// Annotation is a check run's note on lines of a file of its commit.
type Annotation struct {
	Path        string `json:"path"`
	StartLine   int    `json:"start_line"`
	EndLine     int    `json:"end_line"`
	StartColumn int    `json:"start_column,omitempty"`
	Level       string `json:"annotation_level"` // notice, warning or failure
	Title       string `json:"title,omitempty"`
	Message     string `json:"message"`
}

// CheckOutput is what a check run shows: a title and summary (Markdown),
// and annotations, at most MaxAnnotationsPerRequest a request.
type CheckOutput struct {
	Title       string       `json:"title"`
	Summary     string       `json:"summary"`
	Annotations []Annotation `json:"annotations,omitempty"`
}

// CheckRuns lists the check runs named name on commit sha (one request, the
// first 100, newest first), so that a rerun finds its own.
func (c *Client) CheckRuns(ctx context.Context, repo Repo, sha, name string) ([]CheckRun, error) {
	var out struct {
		CheckRuns []CheckRun `json:"check_runs"`
	}
	path := fmt.Sprintf("repos/%s/%s/commits/%s/check-runs?check_name=%s&filter=all&per_page=100", repo.Owner, repo.Name, url.PathEscape(sha), url.QueryEscape(name))
	if err := c.rest.DoWithContext(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, c.checksErr(err, "the check runs of "+text.ShortOID(sha), repo, false)
	}
	return out.CheckRuns, nil
}

// CheckRunAnnotations lists the annotations a check run already has (100 a
// request, up to 3,000): an update appends, so a rerun sends only the
// missing ones.
func (c *Client) CheckRunAnnotations(ctx context.Context, repo Repo, id int64) ([]Annotation, error) {
	var all []Annotation
	for page := 1; page <= 30; page++ {
		var batch []Annotation
		path := fmt.Sprintf("repos/%s/%s/check-runs/%d/annotations?per_page=100&page=%d", repo.Owner, repo.Name, id, page)
		if err := c.rest.DoWithContext(ctx, http.MethodGet, path, nil, &batch); err != nil {
			return nil, c.checksErr(err, fmt.Sprintf("the annotations of check run %d", id), repo, false)
		}
		all = append(all, batch...)
		if len(batch) < 100 {
			break
		}
	}
	return all, nil
}

// CreateCheckRun creates the completed check run name on sha with its
// conclusion (success, failure, neutral) and output. Sent once, like a
// comment: a rerun finds what an unanswered POST made through CheckRuns.
func (c *Client) CreateCheckRun(ctx context.Context, repo Repo, name, sha, conclusion string, out CheckOutput) (*CheckRun, error) {
	payload := map[string]any{"name": name, "head_sha": sha, "status": "completed", "conclusion": conclusion, "output": checkOutput(out)}
	var run CheckRun
	if err := c.post(ctx, fmt.Sprintf("repos/%s/%s/check-runs", repo.Owner, repo.Name), payload, &run); err != nil {
		return nil, c.checksErr(err, "the check run "+name, repo, true)
	}
	return &run, nil
}

// UpdateCheckRun sets check run id's conclusion and output (conclusion ""
// keeps it): its title and summary replace the old, its annotations are
// added to those it has. Sent once.
func (c *Client) UpdateCheckRun(ctx context.Context, repo Repo, id int64, conclusion string, out CheckOutput) (*CheckRun, error) {
	payload := map[string]any{"output": checkOutput(out)}
	if conclusion != "" {
		payload["status"], payload["conclusion"] = "completed", conclusion
	}
	var run CheckRun
	if err := c.send(ctx, http.MethodPatch, fmt.Sprintf("repos/%s/%s/check-runs/%d", repo.Owner, repo.Name, id), payload, &run); err != nil {
		return nil, c.checksErr(err, fmt.Sprintf("the update of check run %d", id), repo, true)
	}
	return &run, nil
}

// checkOutput is out as it may be sent: every text secrets masked and
// control characters inert like any post, each within GitHub's limits.
func checkOutput(out CheckOutput) CheckOutput {
	out.Title = clipRunes(postableLine(out.Title), maxAnnotationTitle)
	out.Summary = clipRunes(text.Inert(redact.Secrets(out.Summary)), maxCheckSummary)
	as := make([]Annotation, 0, len(out.Annotations))
	for _, a := range out.Annotations {
		a.Title = clipRunes(postableLine(a.Title), maxAnnotationTitle)
		a.Message = clipRunes(text.Inert(redact.Secrets(a.Message)), maxAnnotationText)
		as = append(as, a)
	}
	out.Annotations = as
	return out
}

func postableLine(s string) string { return text.OneLine(text.Inert(redact.Secrets(s))) }

// clipRunes cuts s to n runes, ending with "…" when cut.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ChecksRefusedError is GitHub refusing this token the checks API: 403
// ("Resource not accessible by integration": a workflow token without
// checks: write, or a user's token, which may never create check runs) or
// 404.
type ChecksRefusedError struct {
	Status  int
	Message string
}

func (e *ChecksRefusedError) Error() string {
	return fmt.Sprintf("GitHub refused this token the checks API (HTTP %d: %s): a workflow's token needs \"permissions: checks: write\", and a user's token cannot create check runs (a GitHub App's can)", e.Status, e.Message)
}

// checksErr explains a checks API failure; a refusal is a
// ChecksRefusedError.
func (c *Client) checksErr(err error, what string, repo Repo, write bool) error {
	var he *api.HTTPError
	if errors.As(err, &he) && (he.StatusCode == http.StatusForbidden || he.StatusCode == http.StatusNotFound) {
		return &ChecksRefusedError{Status: he.StatusCode, Message: he.Message}
	}
	if write {
		return c.explainWrite(err, what, repo)
	}
	return c.explain(err, what, repo)
}
