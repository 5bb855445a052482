package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/preflight"
	"github.com/ocdx/gh-ocdx/state"
)

func TestParseFix(t *testing.T) {
	t.Setenv("GH_REPO", "octo/widgets")
	for _, tc := range []struct {
		args    []string
		tty     bool
		wantErr string
		check   func(*FixOptions) bool
	}{
		{args: []string{"--yes"}, check: func(o *FixOptions) bool {
			r, err := currentRepo(&Deps{Getenv: os.Getenv}, o.Repo) // GH_REPO, once the configuration is read
			return o.PR == 0 && o.Yes && err == nil && r.Name == "widgets"
		}},
		{args: []string{"--pr", "24", "--dry-run"}, check: func(o *FixOptions) bool { return o.PR == 24 && o.DryRun }},
		{args: []string{"--pr=7", "--continue", "-R", "a/b"}, tty: true, check: func(o *FixOptions) bool { return o.PR == 7 && o.Continue && o.Repo.Owner == "a" }},
		{args: []string{"--findings", "f.json", "--yes"}, check: func(o *FixOptions) bool { return o.Findings == "f.json" }},
		{args: []string{"--pr", "24"}, wantErr: "pass --yes"},
		{args: []string{"--pr", "feat/x", "--yes"}, check: func(o *FixOptions) bool { return o.Branch == "feat/x" && o.PR == 0 }},
		{args: []string{"--pr", "0", "--yes"}, wantErr: "invalid pull request \"0\""},
		{args: []string{"--pr", "-3", "--yes"}, wantErr: "invalid pull request \"-3\""},
		{args: []string{"--pr"}, wantErr: "needs an argument"},
		{args: []string{"--yes", "#24"}, check: func(o *FixOptions) bool { return o.PR == 24 }},
		{args: []string{"--yes", "24", "25"}, wantErr: "unexpected argument \"25\""},
		{args: []string{"--continue", "--findings", "f", "--yes"}, wantErr: "drop --findings"},
		{args: []string{"--force", "--yes"}, wantErr: "unknown flag"},
		{args: []string{"--yes", "-R", "nope"}, wantErr: "invalid value for --repo"},
		{args: []string{"24", "--yes", "--max-tokens", "5000"}, check: func(o *FixOptions) bool { return o.PR == 24 && o.MaxTokens == 5000 }},
		{args: []string{"24", "--yes"}, check: func(o *FixOptions) bool { return o.MaxTokens == 0 }}, // the configuration's maxTokens, if any
		{args: []string{"24", "--yes", "--max-tokens", "0"}, wantErr: "invalid --max-tokens 0"},
		{args: []string{"24", "--yes", "--max-tokens", "-5"}, wantErr: "invalid --max-tokens -5"},
		{args: []string{"24", "--yes", "--max-tokens", "lots"}, wantErr: "invalid argument \"lots\""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d, _, _ := testDeps()
			d.IO.stdinTTY, d.IO.stdoutTTY = tc.tty, tc.tty
			opts, err := parseFix(d, tc.args)
			if tc.wantErr != "" {
				wantUsageError(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(opts) {
				t.Errorf("options %+v", opts)
			}
		})
	}
}

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
	p, _, err := fixPayload(&FixOptions{}, pr, recorded, nil)
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
	p, _, err = fixPayload(&FixOptions{Continue: true}, pr, recorded, &state.WIP{RunID: "2"})
	if err != nil || len(p.IssuesToFix) != 1 || p.IssuesToFix[0].ID != old.ComputeID() {
		t.Errorf("continued payload %+v %v", p, err)
	}

	if _, _, err := fixPayload(&FixOptions{}, pr, state.PR{}, nil); err == nil || !strings.Contains(err.Error(), "--findings") {
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
		p, why, err := fixPayload(&FixOptions{}, pr, state.PR{Runs: tc.runs, Stuck: tc.stuck}, nil)
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

func TestChooseResume(t *testing.T) {
	wip := &state.WIP{RunID: "r", Phase: "fixing (attempt 1 of 3)"}
	withWIP := state.PR{Key: state.NewKey("h", "o", "r", 24), WIP: wip}
	none := state.PR{Key: state.NewKey("h", "o", "r", 24)}
	d, _, _ := testDeps()

	if got, err := chooseResume(d, &FixOptions{Continue: true}, withWIP); got != wip || err != nil {
		t.Errorf("--continue: %v %v", got, err)
	}
	if _, err := chooseResume(d, &FixOptions{Continue: true}, none); err == nil || !strings.Contains(err.Error(), "no interrupted fix") {
		t.Errorf("--continue without a WIP: %v", err)
	}
	if got, _ := chooseResume(d, &FixOptions{Yes: true}, withWIP); got != wip {
		t.Error("--yes continues the interrupted fix")
	}
	if got, _ := chooseResume(d, &FixOptions{Yes: true, Findings: "f"}, withWIP); got != nil {
		t.Error("--findings starts over")
	}

	d.IO.stdinTTY, d.IO.stdoutTTY = true, true
	for pick, want := range map[int]*state.WIP{0: wip, 1: nil} {
		p := &fakePrompter{pick: pick}
		got, err := chooseResume(d, &FixOptions{Prompter: p}, withWIP)
		if got != want || err != nil || len(p.asked) != 1 || !strings.Contains(p.asked[0], "fixing (attempt 1 of 3)") {
			t.Errorf("pick %d: %v %v %v", pick, got, err, p.asked)
		}
	}
	if _, err := chooseResume(d, &FixOptions{Prompter: &fakePrompter{pick: 2}}, withWIP); !errors.Is(err, ErrCancelled) {
		t.Errorf("abort: %v", err)
	}
	if _, err := chooseResume(d, &FixOptions{Prompter: &fakePrompter{err: ErrCancelled}}, withWIP); !errors.Is(err, ErrCancelled) {
		t.Errorf("Ctrl-C: %v", err)
	}
}

func TestDirtyFromWIP(t *testing.T) {
	co := &preflight.Checkout{Repo: &git.Repo{Dir: "/work"}, Dirty: []string{"a.go"}}
	if err := dirtyFromWIP(co, &state.WIP{FilesModified: []string{"a.go", "b.go"}}); err != nil {
		t.Errorf("the interrupted fix's own edits pass: %v", err)
	}
	co.Dirty = append(co.Dirty, "mine.txt")
	if err := dirtyFromWIP(co, &state.WIP{FilesModified: []string{"a.go"}}); !errors.Is(err, preflight.ErrDirty) || !strings.Contains(err.Error(), "mine.txt") || strings.Contains(err.Error(), "a.go") {
		t.Errorf("someone else's change stops the fix: %v", err)
	}
	if err := dirtyFromWIP(&preflight.Checkout{Repo: co.Repo}, nil); err != nil {
		t.Errorf("a clean tree passes: %v", err)
	}
}
