package github_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// A head's check runs are read page after page, with how many
// annotations each has; its PR's code-scanning alerts too, of the ref
// asked for only.
func TestHeadEvidenceIsReadPageByPage(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	c := newClient(t, gh)
	sha := strings.Repeat("b", 40)
	for i := range 130 {
		cr := testkit.CheckRun{Name: fmt.Sprintf("job-%d", i), HeadSHA: sha, Status: "completed", Conclusion: "success", App: "github-actions"}
		if i == 7 {
			cr.Annotations = []testkit.CheckAnnotation{{Path: "a.go", StartLine: 2, EndLine: 2, Level: "warning", Message: "m"}}
		}
		gh.AddCheckRun("octo/widgets", cr)
	}
	runs, err := c.CommitCheckRuns(context.Background(), repo, sha)
	if err != nil || len(runs) != 130 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	annotated := 0
	for _, r := range runs {
		if r.Output.AnnotationsCount > 0 {
			annotated++
			if r.Name != "job-7" || r.Output.AnnotationsCount != 1 {
				t.Errorf("run %+v", r)
			}
		}
	}
	if annotated != 1 {
		t.Errorf("%d runs with annotations, want 1", annotated)
	}
	for i := range 120 {
		gh.AddCodeScanningAlert("octo/widgets", testkit.CodeScanningAlert{Ref: "refs/pull/3/head", Tool: "CodeQL", RuleID: fmt.Sprintf("go/r%d", i),
			Severity: "error", SecurityLevel: "critical", Message: "bad", Path: "a.go", StartLine: i + 1, EndLine: i + 1})
	}
	gh.AddCodeScanningAlert("octo/widgets", testkit.CodeScanningAlert{Ref: "refs/heads/main", Tool: "CodeQL", RuleID: "go/main", Path: "a.go", StartLine: 1})
	alerts, err := c.CodeScanningAlerts(context.Background(), repo, "refs/pull/3/head")
	if err != nil || len(alerts) != 120 {
		t.Fatalf("%d alerts, %v", len(alerts), err)
	}
	a := alerts[119]
	if a.Rule.ID != "go/r119" || a.Rule.SecuritySeverityLevel != "critical" || a.Tool.Name != "CodeQL" || a.MostRecentInstance.Location.StartLine != 120 || a.MostRecentInstance.Message.Text != "bad" {
		t.Errorf("alert %+v", a)
	}
}

// GitHub refusing code scanning (not enabled, the token may not read it,
// no analysis) is a RefusedError with its status and reason, for the one
// line the review says before going on.
func TestCodeScanningRefusedIsARefusal(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusForbidden, http.StatusNotFound} {
		gh := testkit.NewGitHub(t)
		gh.RefuseCodeScanning(status)
		_, err := newClient(t, gh).CodeScanningAlerts(context.Background(), repo, "refs/pull/3/head")
		var refused *github.RefusedError
		if !errors.As(err, &refused) || refused.Status != status || refused.Message == "" {
			t.Errorf("%d: %v", status, err)
		}
	}
}
