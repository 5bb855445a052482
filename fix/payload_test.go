package fix

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/state"
)

func TestFixPayloadFromTheLatestReview(t *testing.T) {
	p0 := finding.Finding{Priority: "P0", Category: "security", File: "a.go", Title: "leak"}
	p2 := finding.Finding{Priority: "P2", Category: "quality", File: "b.go", Title: "name"}
	p3 := finding.Finding{Priority: "P3", Category: "docs", File: "c.md", Title: "typo"}
	stuck := finding.Finding{Priority: "P1", Category: "testing", File: "d.go", Title: "flaky"}
	thread := finding.Finding{ID: "THREAD-PRRC_1", Priority: "P1", Category: "other", File: "e.go", Title: "human"}
	old := finding.Finding{Priority: "P1", Category: "quality", File: "old.go", Title: "older round"}
	recorded := state.PR{
		Key:   state.NewKey("github.com", "o", "r", 24),
		Stuck: []state.Stuck{{ID: stuck.ComputeID()}},
		Runs: []state.Run{
			{ID: "1", Kind: "review-loop", Rounds: []state.Round{
				{N: 1, HeadOID: "old", Findings: []finding.Finding{old}},
				{N: 2, HeadOID: "head", Findings: []finding.Finding{p0, p2, p3, stuck, thread, p2}},
			}},
			{ID: "2", Kind: "fix", Rounds: []state.Round{{N: 1, Findings: []finding.Finding{old}}}},
		},
	}
	pr := &github.PullRequest{Number: 24, HeadRefOid: "head"}
	p, _, err := payloadFor("", pr, recorded, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range p.IssuesToFix {
		ids = append(ids, f.ID)
	}
	if p.Round != 2 || strings.Join(ids, ",") != p0.ComputeID()+","+p2.ComputeID() || len(p.OptionalIssues) != 1 || p.OptionalIssues[0].ID != p3.ComputeID() {
		t.Errorf("payload %+v", p)
	}

	// Continuing a fix takes that fix's own findings.
	p, _, err = payloadFor("", pr, recorded, &state.WIP{RunID: "2"})
	if err != nil || len(p.IssuesToFix) != 1 || p.IssuesToFix[0].ID != old.ComputeID() {
		t.Errorf("continued payload %+v %v", p, err)
	}

	if _, _, err := payloadFor("", pr, state.PR{}, nil); err == nil || !strings.Contains(err.Error(), "--findings") {
		t.Errorf("no review recorded: %v", err)
	}
}

// Only the latest round of the latest review-loop run, at the PR's head,
// gives findings to fix; anything else is nothing to fix, with the reason.
func TestFixPayloadIsNeverStale(t *testing.T) {
	bug := finding.Finding{Priority: "P1", Category: "quality", File: "a.go", Title: "bug"}
	stuck := finding.Finding{Priority: "P1", Category: "testing", File: "d.go", Title: "flaky"}
	pr := &github.PullRequest{Number: 24, HeadRefOid: "1234567890"}
	older := state.Run{ID: "1", Kind: "review-loop", Outcome: state.OutcomeBlocked, Rounds: []state.Round{{N: 1, HeadOID: pr.HeadRefOid, Findings: []finding.Finding{bug}}}}
	for name, tc := range map[string]struct {
		runs  []state.Run
		stuck []state.Stuck
		want  string
	}{
		"converged, findings dropped": {[]state.Run{older, {ID: "2", Kind: "review-loop", Outcome: state.OutcomeConverged, Rounds: []state.Round{{N: 1, HeadOID: pr.HeadRefOid}}}}, nil, "run (2) converged"},
		"older head":                  {[]state.Run{{ID: "3", Kind: "review-loop", Rounds: []state.Round{{N: 1, HeadOID: "abcdef0123", Findings: []finding.Finding{bug}}}}}, nil, "older head abcdef0, and the PR is at 1234567 now: run 'gh ocdx review-loop --pr 24' first"},
		"not reviewed":                {[]state.Run{older, {ID: "4", Kind: "review-loop", Rounds: []state.Round{{N: 1, HeadOID: pr.HeadRefOid}}}}, nil, "round 1 of run 4 has no findings"},
		"only stuck left":             {[]state.Run{{ID: "5", Kind: "review-loop", Rounds: []state.Round{{N: 1, HeadOID: pr.HeadRefOid, Findings: []finding.Finding{stuck}}}}}, []state.Stuck{{ID: stuck.ComputeID()}}, "stuck findings left out (they came back after being reported fixed, and need a human): " + stuck.ComputeID()},
	} {
		p, why, err := payloadFor("", pr, state.PR{Runs: tc.runs, Stuck: tc.stuck}, nil)
		if err != nil || len(p.IssuesToFix) != 0 || !strings.Contains(why, tc.want) {
			t.Errorf("%s: %d to fix, %q, %v; want nothing to fix: %q", name, len(p.IssuesToFix), why, err, tc.want)
		}
	}
}

func TestReadPayload(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "p.json")
		os.WriteFile(p, []byte(s), 0o600)
		return p
	}
	p, err := readPayload(write(`{"prNumber":24,"round":2,"issuesToFix":[{"priority":"P1","category":"security","file":"a","line":3,"title":"t","description":"d"}]}`), 24)
	if err != nil || p.IssuesToFix[0].ID == "" || p.Round != 2 || p.OptionalIssues == nil {
		t.Errorf("payload %+v %v", p, err)
	}
	for body, want := range map[string]string{
		`{"prNumber":25,"issuesToFix":[]}`: "is for PR #25",
		`{"issuesToFix":[{"priority":"P9","category":"x","file":"a","title":"t","description":"d"}]}`: "priority",
		`{"issuesToFix":[{"id":"X-1","priority":"P1"},{"id":"X-1","priority":"P2"}]}`:                 "twice",
		`[1,2]`: "is not a fix payload",
	} {
		if _, err := readPayload(write(body), 24); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
	if _, err := readPayload(filepath.Join(dir, "missing.json"), 24); err == nil {
		t.Error("a missing file is an error")
	}
	// A named pipe is refused at once, not waited on; so is a device.
	fifo := filepath.Join(dir, "findings.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a named pipe (FIFO), not a regular file", "/dev/zero": "a character device"} {
		if _, err := readPayload(path, 24); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("--findings %s: %v, want %q", path, err, want)
		}
	}
}

// The summary of a dry run says nothing left the machine; a pushed fix
// names the branch and head; a rejection says why, on one line.
func TestSummarySaysWhatLeftTheMachine(t *testing.T) {
	pr := &github.PullRequest{Number: 24, HeadRefName: "feature"}
	out := &state.FixResult{Fixed: []finding.FixedIssue{{FindingID: "QUAL-1"}}, Rejected: []finding.RejectedIssue{{FindingID: "SEC-2", Reason: "not\na bug"}},
		Attempts: 1, HeadOID: "0123456789abcdef0123456789abcdef01234567", Pushed: true}
	dry := Summary(pr, out, true, "")
	if !strings.Contains(dry, "Dry run: nothing pushed, nothing posted") || strings.Contains(dry, "Pushed to") {
		t.Errorf("dry run:\n%s", dry)
	}
	pushed := Summary(pr, out, false, "")
	if !strings.Contains(pushed, "- Pushed to feature (head 0123456)") || !strings.Contains(pushed, "- Rejected SEC-2: not a bug\n") {
		t.Errorf("pushed:\n%s", pushed)
	}
}
