package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/cli/go-gh/v2/pkg/api"
)

// The bounds of what a review reads of a head's evidence on GitHub
// (docs/architecture.md, Evidence): 100 a page.
const (
	maxCheckRunPages = 5  // 500 check runs
	maxAlertPages    = 10 // 1,000 alerts
)

// CommitCheckRuns lists the latest check run of each name on commit sha,
// every app's (newest first, up to 500): the head's CI results, whose
// annotations are evidence.
func (c *Client) CommitCheckRuns(ctx context.Context, repo Repo, sha string) ([]CheckRun, error) {
	var all []CheckRun
	for page := 1; page <= maxCheckRunPages; page++ {
		var out struct {
			CheckRuns []CheckRun `json:"check_runs"`
		}
		path := fmt.Sprintf("repos/%s/%s/commits/%s/check-runs?filter=latest&per_page=100&page=%d", repo.Owner, repo.Name, url.PathEscape(sha), page)
		if err := c.rest.DoWithContext(ctx, http.MethodGet, path, nil, &out); err != nil {
			return nil, c.readErr(err, "the check runs of "+sha, repo)
		}
		all = append(all, out.CheckRuns...)
		if len(out.CheckRuns) < 100 {
			break
		}
	}
	return all, nil
}

// CodeScanningAlert is an open code-scanning alert as GitHub lists it for
// a ref, with its most recent instance there.
type CodeScanningAlert struct {
	Number int    `json:"number"`
	URL    string `json:"html_url"`
	Rule   struct {
		ID                    string `json:"id"`
		Severity              string `json:"severity"`                // none, note, warning, error
		SecuritySeverityLevel string `json:"security_severity_level"` // low, medium, high, critical; "" for none
		Description           string `json:"description"`
	} `json:"rule"`
	Tool struct {
		Name string `json:"name"`
	} `json:"tool"`
	MostRecentInstance struct {
		Ref     string `json:"ref"`
		Message struct {
			Text string `json:"text"`
		} `json:"message"`
		Location struct {
			Path        string `json:"path"`
			StartLine   int    `json:"start_line"`
			EndLine     int    `json:"end_line"`
			StartColumn int    `json:"start_column"`
		} `json:"location"`
	} `json:"most_recent_instance"`
}

// CodeScanningAlerts lists the open code-scanning alerts of ref
// ("refs/pull/7/head"), up to 1,000.
func (c *Client) CodeScanningAlerts(ctx context.Context, repo Repo, ref string) ([]CodeScanningAlert, error) {
	var all []CodeScanningAlert
	for page := 1; page <= maxAlertPages; page++ {
		var batch []CodeScanningAlert
		path := fmt.Sprintf("repos/%s/%s/code-scanning/alerts?ref=%s&state=open&per_page=100&page=%d", repo.Owner, repo.Name, url.QueryEscape(ref), page)
		if err := c.rest.DoWithContext(ctx, http.MethodGet, path, nil, &batch); err != nil {
			return nil, c.readErr(err, "the code-scanning alerts of "+ref, repo)
		}
		all = append(all, batch...)
		if len(batch) < 100 {
			break
		}
	}
	return all, nil
}

// RefusedError is GitHub refusing this token a read the review can go
// without (403 or 404): code scanning not enabled, or not readable with
// the token (a workflow's token needs "security-events: read"), no
// analysis of the ref, checks not readable.
type RefusedError struct {
	What    string
	Status  int
	Message string // GitHub's
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("GitHub refused %s (HTTP %d: %s)", e.What, e.Status, e.Message)
}

// readErr is a read's failure: a refusal is a RefusedError.
func (c *Client) readErr(err error, what string, repo Repo) error {
	var he *api.HTTPError
	if errors.As(err, &he) && (he.StatusCode == http.StatusForbidden || he.StatusCode == http.StatusNotFound) {
		return &RefusedError{What: what, Status: he.StatusCode, Message: he.Message}
	}
	return c.explain(err, what, repo)
}
