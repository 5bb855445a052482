package finding

import (
	"errors"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/envelope"
)

func TestFindingID(t *testing.T) {
	line := func(n int) *int { return &n }
	for _, c := range []struct {
		category, file string
		line           *int
		title, want    string
	}{
		// SHA-1 of "category|file|line|title", computed independently.
		{"security", "src/auth.ts", line(42), "Hard-coded token", "SEC-b0bf205b"},
		{"performance", "db.go", nil, "N+1 query", "PERF-693d20d2"},
		{"review-thread", "a.go", line(7), "Unresolved review thread", "OTHER-882c9ec4"},
		{"Docs", "README.md", line(0), "Typo", "DOCS-6e2a821d"}, // line 0 is not null
	} {
		if got := ID(c.category, c.file, c.line, c.title); got != c.want {
			t.Errorf("ID(%q, %q, %v, %q) = %s, want %s", c.category, c.file, c.line, c.title, got, c.want)
		}
	}
	codes := map[string]string{"security": "SEC", "performance": "PERF", "quality": "QUAL", "architecture": "ARCH",
		"testing": "TEST", "docs": "DOCS", "other": "OTHER", "style": "OTHER", "": "OTHER"}
	for cat, code := range codes {
		if id := (Finding{Category: cat, File: "f", Title: "t"}).ComputeID(); !strings.HasPrefix(id, code+"-") || len(id) != len(code)+9 {
			t.Errorf("category %q: id %s, want %s-<8 hex>", cat, id, code)
		}
	}
	a := Finding{Category: "quality", File: "a.go", Line: line(3), Title: "x"}
	b := a
	b.Line = line(4)
	if a.ComputeID() == b.ComputeID() {
		t.Error("the line does not change the ID")
	}
}

const reviewerOK = `BEGIN_JSON
{
  "agent": "reviewer-1",
  "prNumber": 123,
  "conclusion": "request_changes",
  "issues": { "p0_blocking": 1, "p1_critical": 0, "p2_important": 0, "p3_suggestion": 0 },
  "findings": [
    {
      "id": "SEC-whatever",
      "priority": "P0",
      "category": "security",
      "file": "src/auth.ts",
      "line": 42,
      "title": "Hard-coded token",
      "description": "...",
      "suggestion": "...",
      "source": { "type": "agent", "name": "reviewer-1", "reviewId": null, "timestamp": "2026-01-24T00:00:00Z" }
    },
    { "priority": "P3", "category": "docs", "file": "README.md", "line": null, "title": "Typo", "description": "d" }
  ],
  "fullReport": "Markdown report (no full diffs)"
}
END_JSON`

func TestDecodeShapes(t *testing.T) {
	var r ReviewerResult
	if err := envelope.Decode("reviewer-1", reviewerOK, &r); err != nil {
		t.Fatal(err)
	}
	if r.Issues.P0 != 1 || len(r.Findings) != 2 || *r.Findings[0].Line != 42 || r.Findings[1].Line != nil || r.Findings[0].Source.Name != "reviewer-1" {
		t.Errorf("%+v", r)
	}
	if r.Findings[0].ComputeID() != "SEC-b0bf205b" {
		t.Errorf("id %s", r.Findings[0].ComputeID())
	}

	var c CommentsAnalyzerResult
	err := envelope.Decode("comments-analyzer", `BEGIN_JSON {"agent":"comments-analyzer","prNumber":1,
		"reviewState":{"hasChangesRequested":true,"changesRequestedBy":[{"login":"bob","association":"MEMBER"}]},
		"stats":{"totalThreads":2,"resolvedThreads":1,"unresolvedThreads":1},"threadsTruncated":false,
		"issues":{"p0_blocking":0,"p1_critical":1,"p2_important":0,"p3_suggestion":0},
		"pendingIssues":[{"id":"THREAD-99","priority":"P1","category":"review-thread","file":"a.go","line":3,"title":"Unresolved review thread","description":"d","suggestion":"s",
		  "source":{"type":"human","name":"bob","reviewId":"99","timestamp":"2026-01-24T00:00:00Z"}}],
		"fullReport":"r"} END_JSON`, &c)
	if err != nil || c.ReviewState.ChangesRequestedBy[0].Association != "MEMBER" || *c.PendingIssues[0].Source.ReviewID != "99" {
		t.Fatalf("%v %+v", err, c)
	}

	var f FixAnswer
	err = envelope.Decode("pr-fix", `BEGIN_JSON {"agent":"pr-fix","prNumber":1,"summary":{"fixed":1,"rejected":1,"deferred":0},
		"fixedIssues":[{"findingId":"SEC-b0bf205b","commitSha":"abcdef0","description":"moved to env"}],
		"rejectedIssues":[{"findingId":"DOCS-6e2a821d","reason":"not a typo"}],
		"commits":[{"sha":"abcdef0","message":"fix: token from env"}]} END_JSON`, &f)
	if err != nil || f.Summary.Fixed != 1 || f.FixedIssues[0].CommitSha != "abcdef0" || f.RejectedIssues[0].Reason != "not a typo" {
		t.Fatalf("%v %+v", err, f)
	}

	var p FixPayload
	if err := envelope.Decode("orchestrator", `BEGIN_JSON {"prNumber":1,"round":2,"issuesToFix":[],"optionalIssues":[]} END_JSON`, &p); err != nil || p.Round != 2 {
		t.Fatalf("%v %+v", err, p)
	}
}

func TestDecodeShapesRejects(t *testing.T) {
	for _, c := range []struct {
		name, from, to string
		kind           error
		detail         string
	}{
		{"bad conclusion", `"conclusion": "request_changes"`, `"conclusion": "lgtm"`, envelope.ErrInvalidValue, `conclusion "lgtm"`},
		{"bad priority", `"priority": "P3"`, `"priority": "high"`, envelope.ErrInvalidValue, `findings[1]: priority "high"`},
		{"missing title", `"title": "Typo", `, ``, envelope.ErrMissingField, "findings[1].title is missing"},
		{"missing counts", `"issues": { "p0_blocking": 1, "p1_critical": 0, "p2_important": 0, "p3_suggestion": 0 },`, ``, envelope.ErrMissingField, "issues is missing"},
		{"count as string", `"p0_blocking": 1`, `"p0_blocking": "1"`, envelope.ErrWrongType, "p0_blocking"},
		{"line as string", `"line": 42`, `"line": "42"`, envelope.ErrWrongType, "line"},
		{"findings null", `"findings": [`, `"findings": null, "x": [`, envelope.ErrMissingField, "findings is null"},
	} {
		answer := strings.Replace(reviewerOK, c.from, c.to, 1)
		if answer == reviewerOK {
			t.Fatalf("%s: replacement did not apply", c.name)
		}
		err := envelope.Decode("reviewer-1", answer, &ReviewerResult{})
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.detail) || !strings.HasPrefix(err.Error(), "reviewer-1: ") {
			t.Errorf("%s: err = %v, want %v with %q", c.name, err, c.kind, c.detail)
		}
	}
	// A fix result without its commits list fails.
	err := envelope.Decode("pr-fix", `BEGIN_JSON {"agent":"pr-fix","prNumber":1,"summary":{"fixed":0,"rejected":0,"deferred":0},"fixedIssues":[],"rejectedIssues":[]} END_JSON`, &FixAnswer{})
	if !errors.Is(err, envelope.ErrMissingField) || !strings.Contains(err.Error(), "commits is missing") {
		t.Errorf("err = %v", err)
	}
}
