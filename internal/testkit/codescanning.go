package testkit

import (
	"net/http"
	"regexp"
	"strconv"
)

// CodeScanningAlert is an open alert the fake lists for a ref, in the
// shape of GitHub's "List code scanning alerts for a repository".
type CodeScanningAlert struct {
	Ref           string // "refs/pull/7/head"
	Tool          string // "CodeQL"
	RuleID        string
	Severity      string // none, note, warning, error
	SecurityLevel string // low, medium, high, critical; "" for none
	Description   string
	Message       string
	Path          string
	StartLine     int
	EndLine       int
	StartColumn   int
	Number        int // set by AddCodeScanningAlert
	repo          string
}

var reAlerts = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/code-scanning/alerts$`)

// AddCodeScanningAlert adds an open alert of repo.
func (g *GitHub) AddCodeScanningAlert(repo string, a CodeScanningAlert) {
	g.mu.Lock()
	defer g.mu.Unlock()
	a.repo, a.Number = repo, len(g.alerts)+1
	g.alerts = append(g.alerts, &a)
}

// RefuseCodeScanning answers the alerts with status as GitHub does when
// code scanning is not enabled or the token may not read it (403), or
// there is no analysis (404).
func (g *GitHub) RefuseCodeScanning(status int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.alertsRefused = status
}

// serveAlerts lists the open alerts of the ref asked for, paged; a
// repository with none answers [] (code scanning on, nothing found).
func (g *GitHub) serveAlerts(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.Method != http.MethodGet {
		notFound(w)
		return
	}
	switch g.alertsRefused {
	case 0:
	case http.StatusNotFound:
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "no analysis found",
			"documentation_url": "https://docs.github.com/rest/code-scanning/code-scanning#list-code-scanning-alerts-for-a-repository", "status": "404"})
		return
	default:
		writeJSON(w, g.alertsRefused, map[string]any{"message": "Code scanning is not enabled for this repository. Please enable code scanning in the repository settings.",
			"documentation_url": "https://docs.github.com/rest/code-scanning/code-scanning#list-code-scanning-alerts-for-a-repository", "status": strconv.Itoa(g.alertsRefused)})
		return
	}
	m := reAlerts.FindStringSubmatch(r.URL.Path)
	q := r.URL.Query()
	list := []map[string]any{}
	for _, a := range g.alerts {
		if a.repo != m[1] || q.Get("state") != "" && q.Get("state") != "open" || q.Get("ref") != "" && q.Get("ref") != a.Ref {
			continue
		}
		var sec any
		if a.SecurityLevel != "" {
			sec = a.SecurityLevel
		}
		list = append(list, map[string]any{
			"number": a.Number, "state": "open", "html_url": "https://" + g.Host() + "/" + a.repo + "/security/code-scanning/" + strconv.Itoa(a.Number),
			"rule": map[string]any{"id": a.RuleID, "severity": a.Severity, "security_severity_level": sec, "description": a.Description, "name": a.RuleID, "tags": []string{"security"}},
			"tool": map[string]any{"name": a.Tool, "guid": nil, "version": "2.20.0"},
			"most_recent_instance": map[string]any{"ref": a.Ref, "analysis_key": ".github/workflows/codeql.yml:analyze", "state": "open", "commit_sha": "",
				"message":         map[string]any{"text": a.Message},
				"location":        map[string]any{"path": a.Path, "start_line": a.StartLine, "end_line": a.EndLine, "start_column": a.StartColumn, "end_column": a.StartColumn + 1},
				"classifications": []string{}},
		})
	}
	from, to := restPage(r, len(list))
	writeJSON(w, http.StatusOK, list[from:to])
}
