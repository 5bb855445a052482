package verifier

import (
	"github.com/ocdx/gh-ocdx/change"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
)

func verifierFindings() []finding.Finding {
	one := []string{"openai/a"}
	return []finding.Finding{
		{ID: "QUAL-00000001", Priority: "P2", Reviewers: one, Agreement: "1/2"},
		{ID: "QUAL-00000002", Priority: "P1", Reviewers: []string{"openai/a", "anthropic/b"}, Agreement: "2/2"},
		{ID: "QUAL-00000003", Priority: "P0", Reviewers: one, Agreement: "1/2"},
		{ID: "SEC-00000004", Priority: "P1", Reviewers: one, Agreement: "1/2"},
		{ID: "THREAD-1234", Priority: "P1"},
		{ID: "PERF-00000005", Priority: "P3", Reviewers: one, Agreement: "1/2"},
	}
}

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

// Only P1–P3 findings a single reviewer raised go to the verifier: never a
// P0, a SEC- finding or a thread; with one reviewer configured, every
// checkable one.
func TestVerifiable(t *testing.T) {
	fs := verifierFindings()
	if got := ids(Verifiable(fs, 2)); len(got) != 2 || got[0] != "QUAL-00000001" || got[1] != "PERF-00000005" {
		t.Errorf("two reviewers: sent %v, want QUAL-00000001 and PERF-00000005", got)
	}
	if got := ids(Verifiable(fs, 1)); len(got) != 3 || got[1] != "QUAL-00000002" {
		t.Errorf("one reviewer: sent %v, want every P1–P3 finding but SEC- and threads", got)
	}
}

// A verdict refutes only a checkable finding it names; an unknown ID, a P0,
// a SEC- or THREAD- finding, or an ID also confirmed stays as it was.
func TestApplyVerdicts(t *testing.T) {
	fs := verifierFindings()
	vs := []Verdict{
		{ID: "QUAL-00000001", Refuted: true, Evidence: "cache.go:3 `var Size = 10`"},
		{ID: "QUAL-00000003", Refuted: true, Evidence: "x"},
		{ID: "SEC-00000004", Refuted: true, Evidence: "x"},
		{ID: "THREAD-1234", Refuted: true, Evidence: "x"},
		{ID: "QUAL-deadbeef", Refuted: true, Evidence: "x"},
		{ID: "PERF-00000005", Refuted: true, Evidence: "x"},
		{ID: "PERF-00000005", Refuted: false},
	}
	got := ApplyVerdicts(fs, vs)
	for _, f := range fs {
		if f.Status != "" {
			t.Fatalf("ApplyVerdicts changed its input: %s is %s", f.ID, f.Status)
		}
	}
	if len(got) != len(fs) {
		t.Fatalf("got %d findings, want %d", len(got), len(fs))
	}
	for _, f := range got {
		want := finding.Status("")
		if f.ID == "QUAL-00000001" {
			want = finding.StatusRefuted
		}
		if f.Status != want {
			t.Errorf("%s: status %q, want %q", f.ID, f.Status, want)
		}
	}
	if got[0].Evidence != "cache.go:3 `var Size = 10`" {
		t.Errorf("evidence %q", got[0].Evidence)
	}
	kept, refuted := SplitRefuted(got)
	if len(kept) != 5 || len(refuted) != 1 {
		t.Errorf("split %d kept, %d refuted", len(kept), len(refuted))
	}
}

// Only an answer about a finding the verifier was sent is a verdict, and
// its evidence, a model's text, is redacted and cut before a review
// quotes it.
func TestVerdictsOnlyOfWhatWasSent(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2", 9)
	answers := []finding.VerifierAnswer{
		{ID: "QUAL-00000001", Verdict: finding.Refuted, Evidence: "  config.go:3 `var Size = 10` " + strings.Repeat("and so on ", MaxEvidence)},
		{ID: "PERF-00000005", Verdict: finding.Refuted, Evidence: "token := \"" + token + "\""},
		{ID: "QUAL-00000003", Verdict: finding.Refuted, Evidence: "not sent"},
		{ID: "PERF-00000005", Verdict: finding.Confirmed},
	}
	vs := Verdicts(answers, []string{"QUAL-00000001", "PERF-00000005"})
	if len(vs) != 3 || vs[0].ID != "QUAL-00000001" || !vs[0].Refuted || vs[1].ID != "PERF-00000005" || vs[2].Refuted {
		t.Fatalf("verdicts %+v, want QUAL-00000001 refuted and PERF-00000005 refuted and confirmed", vs)
	}
	if e := vs[0].Evidence; !strings.HasPrefix(e, "config.go:3 `var Size = 10`") || len([]rune(e)) != MaxEvidence+1 || !strings.HasSuffix(e, "…") {
		t.Errorf("evidence not trimmed and cut: %q", e)
	}
	if e := vs[1].Evidence; strings.Contains(e, token) || !strings.Contains(e, "REDACTED") {
		t.Errorf("evidence not redacted: %q", e)
	}
}

// The task names each finding it sends, and nothing of those not sent.
func TestTaskNamesTheFindingsSent(t *testing.T) {
	fs := verifierFindings()
	task, err := Task(change.Subject{Number: 7, Title: "Cache", HeadOID: "0123456789abcdef"}, fs[:1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(task, "QUAL-00000001") || strings.Contains(task, "QUAL-00000002") || !strings.Contains(task, "0123456") {
		t.Errorf("task:\n%s", task)
	}
}

// A change that is no pull request is named as one: no "pull request #0",
// no URL.
func TestTaskOfALocalChangeNamesNoPullRequest(t *testing.T) {
	task, err := Task(change.Subject{Title: "Local changes on feature", HeadOID: "0123456789abcdef"}, verifierFindings()[:1])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(task, "pull request #") || strings.Contains(task, "(none") || !strings.Contains(task, "a change that is no pull request (Local changes on feature)") {
		t.Errorf("task:\n%s", task)
	}
}
