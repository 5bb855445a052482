package testkit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// CheckRun is a check run the fake keeps, as GitHub's checks API does:
// made by an app (the token's, unless a test adds another's), its
// annotations appended by every update, at most 50 a request.
type CheckRun struct {
	ID          int64
	Repo        string
	Name        string
	HeadSHA     string
	Status      string
	Conclusion  string
	Title       string
	Summary     string
	Annotations []CheckAnnotation
	// Batches are the number of annotations each create or update sent.
	Batches []int
	App     string // the slug of the app that made it
}

// CheckAnnotation is an annotation as the API takes and lists it.
type CheckAnnotation struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Level     string `json:"annotation_level"`
	Title     string `json:"title,omitempty"`
	Message   string `json:"message"`
}

var (
	reCheckRuns       = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/check-runs$`)
	reCheckRun        = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/check-runs/(\d+)$`)
	reCheckAnnotation = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/check-runs/(\d+)/annotations$`)
	reCommitChecks    = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/commits/([^/]+)/check-runs$`)
)

// checkRunKind is the log's kind of a checks API request; "" for another.
func checkRunKind(path string) string {
	switch {
	case reCheckRuns.MatchString(path):
		return "check-run"
	case reCheckRun.MatchString(path):
		return "check-run-edit"
	case reCheckAnnotation.MatchString(path):
		return "check-annotations"
	case reCommitChecks.MatchString(path):
		return "check-runs"
	}
	return ""
}

// appSlug is the slug of the app the fake's token acts for: its login
// without "[bot]".
func (g *GitHub) appSlug() string { return strings.TrimSuffix(g.Login, "[bot]") }

// RefuseChecks makes every create and update of a check run answer status
// (403 as to a workflow token without checks: write or a user's token, or
// 404) with GitHub's message; reads still work.
func (g *GitHub) RefuseChecks(status int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.checksRefused = status
}

// AddCheckRun adds a check run made by app (another app's, for a test).
func (g *GitHub) AddCheckRun(repo string, cr CheckRun) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextID++
	cr.ID, cr.Repo = g.nextID, repo
	g.checkRuns = append(g.checkRuns, &cr)
}

// CheckRuns returns repo's check runs, oldest first.
func (g *GitHub) CheckRuns(repo string) []CheckRun {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []CheckRun
	for _, cr := range g.checkRuns {
		if cr.Repo == repo {
			c := *cr
			c.Annotations, c.Batches = slices.Clone(cr.Annotations), slices.Clone(cr.Batches)
			out = append(out, c)
		}
	}
	return out
}

func (g *GitHub) serveCheckRuns(w http.ResponseWriter, r *http.Request, kind string, body []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.checksRefused != 0 && (r.Method == http.MethodPost || r.Method == http.MethodPatch) {
		writeJSON(w, g.checksRefused, map[string]any{"message": "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest/checks/runs#create-a-check-run", "status": strconv.Itoa(g.checksRefused)})
		return
	}
	switch {
	case kind == "check-runs" && r.Method == http.MethodGet:
		m := reCommitChecks.FindStringSubmatch(r.URL.Path)
		name := r.URL.Query().Get("check_name")
		list := []map[string]any{}
		for i := len(g.checkRuns) - 1; i >= 0; i-- { // newest first
			cr := g.checkRuns[i]
			if cr.Repo == m[1] && cr.HeadSHA == m[2] && (name == "" || cr.Name == name) {
				list = append(list, g.checkRunJSON(cr))
			}
		}
		from, to := restPage(r, len(list))
		writeJSON(w, http.StatusOK, map[string]any{"total_count": len(list), "check_runs": list[from:to]})
	case kind == "check-annotations" && r.Method == http.MethodGet:
		m := reCheckAnnotation.FindStringSubmatch(r.URL.Path)
		cr := g.checkRun(m[1], m[2])
		if cr == nil {
			notFound(w)
			return
		}
		from, to := restPage(r, len(cr.Annotations))
		writeJSON(w, http.StatusOK, append([]CheckAnnotation{}, cr.Annotations[from:to]...))
	case kind == "check-run" && r.Method == http.MethodPost, kind == "check-run-edit" && r.Method == http.MethodPatch:
		var in struct {
			Name, Status, Conclusion string
			HeadSHA                  string `json:"head_sha"`
			Output                   *struct {
				Title, Summary string
				Annotations    []CheckAnnotation
			}
		}
		if err := json.Unmarshal(body, &in); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
			return
		}
		if msg := checkRunInvalid(kind, in.Name, in.HeadSHA, in.Conclusion, in.Output != nil); msg != "" {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed: " + msg})
			return
		}
		var cr *CheckRun
		if kind == "check-run" {
			m := reCheckRuns.FindStringSubmatch(r.URL.Path)
			g.nextID++
			cr = &CheckRun{ID: g.nextID, Repo: m[1], Name: in.Name, HeadSHA: in.HeadSHA, App: g.appSlug(), Status: "queued"}
		} else {
			m := reCheckRun.FindStringSubmatch(r.URL.Path)
			if cr = g.checkRun(m[1], m[2]); cr == nil {
				notFound(w)
				return
			}
			if cr.App != g.appSlug() {
				writeJSON(w, http.StatusForbidden, map[string]any{"message": "Invalid app_id `" + cr.App + "` - check run can only be modified by the GitHub App that created it."})
				return
			}
		}
		if o := in.Output; o != nil {
			if msg := outputInvalid(o.Title, o.Summary, o.Annotations); msg != "" {
				writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed: " + msg})
				return
			}
			cr.Title, cr.Summary = o.Title, o.Summary
			cr.Annotations = append(cr.Annotations, o.Annotations...)
			cr.Batches = append(cr.Batches, len(o.Annotations))
		}
		if in.Conclusion != "" {
			cr.Status, cr.Conclusion = "completed", in.Conclusion
		} else if in.Status != "" {
			cr.Status = in.Status
		}
		status := http.StatusOK
		if kind == "check-run" {
			g.checkRuns = append(g.checkRuns, cr)
			status = http.StatusCreated
		}
		writeJSON(w, status, g.checkRunJSON(cr))
	default:
		notFound(w)
	}
}

// checkRunInvalid is why GitHub would refuse a create or an update; "" when
// it would not.
func checkRunInvalid(kind, name, sha, conclusion string, output bool) string {
	switch {
	case kind == "check-run" && name == "":
		return "name is missing"
	case kind == "check-run" && !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(sha):
		return "head_sha is not a commit"
	case conclusion != "" && !slices.Contains([]string{"action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out"}, conclusion):
		return "conclusion is not one of the allowed values"
	}
	return ""
}

// outputInvalid checks an output as GitHub does.
func outputInvalid(title, summary string, as []CheckAnnotation) string {
	switch {
	case title == "" || summary == "":
		return "output needs a title and a summary"
	case len([]rune(summary)) > 65535:
		return "summary is too long (maximum is 65535 characters)"
	case len(as) > 50:
		return fmt.Sprintf("only 50 annotations may be sent per request, not %d", len(as))
	}
	for _, a := range as {
		switch {
		case a.Path == "" || a.StartLine < 1 || a.EndLine < a.StartLine || a.Message == "":
			return fmt.Sprintf("annotation %+v needs a path, start_line <= end_line and a message", a)
		case !slices.Contains([]string{"notice", "warning", "failure"}, a.Level):
			return "annotation_level must be notice, warning or failure"
		case len([]rune(a.Title)) > 255:
			return "annotation title is too long (maximum is 255 characters)"
		case len(a.Message) > 64<<10:
			return "annotation message is too long (maximum is 64 KB)"
		}
	}
	return ""
}

// restPage is the range of a list of n items that the request's page and
// per_page (GitHub's default 30, at most 100) select.
func restPage(r *http.Request, n int) (from, to int) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 || per > 100 {
		per = 30
	}
	pg, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pg = max(pg, 1)
	return min((pg-1)*per, n), min(pg*per, n)
}

func (g *GitHub) checkRun(repo, id string) *CheckRun {
	n, _ := strconv.ParseInt(id, 10, 64)
	for _, cr := range g.checkRuns {
		if cr.Repo == repo && cr.ID == n {
			return cr
		}
	}
	return nil
}

func (g *GitHub) checkRunJSON(cr *CheckRun) map[string]any {
	return map[string]any{"id": cr.ID, "name": cr.Name, "head_sha": cr.HeadSHA, "status": cr.Status, "conclusion": cr.Conclusion,
		"html_url": fmt.Sprintf("https://%s/%s/runs/%d", g.Host(), cr.Repo, cr.ID),
		"output":   map[string]any{"title": cr.Title, "summary": cr.Summary, "annotations_count": len(cr.Annotations)},
		"app":      map[string]any{"slug": cr.App, "name": cr.App}}
}
