package statecmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	bolt "go.etcd.io/bbolt"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/report"
	"github.com/ocdx/gh-ocdx/state"
	"github.com/ocdx/gh-ocdx/verify"
)

// stateTestDeps returns cmdutil.Deps over buffers whose state file lives in dir;
// tty says whether stdin and stdout are terminals.
func stateTestDeps(dir string, tty bool) (d *cmdutil.Deps, stdout, stderr *bytes.Buffer) {
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	return &cmdutil.Deps{
		IO:     &cmdutil.IOStreams{In: strings.NewReader(""), Out: stdout, ErrOut: stderr, StdinTTY: tty, StdoutTTY: tty},
		Getenv: func(k string) string { return map[string]string{"OCDX_STATE_DIR": dir}[k] },
		Log:    log.NewWithOptions(stderr, log.Options{Level: log.InfoLevel}),
	}, stdout, stderr
}

var (
	testKey  = state.NewKey("github.com", "owner", "repo", 7)
	otherKey = state.NewKey("github.com", "other", "repo", 1)
)

// seedState records a blocked run of two rounds with a stuck finding and a
// WIP on testKey, and a converged run on otherKey.
func seedState(t *testing.T, dir string) {
	t.Helper()
	st := state.New(filepath.Join(dir, "state.db"), nil)
	a, err := st.Begin(testKey, "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	steps := []error{
		func() error { _, err := a.StartRound(1, "0123456789abcdef"); return err }(),
		a.Complete(1, state.PhaseReviewed, func(r *state.Round) {
			r.Findings = []finding.Finding{{ID: "SEC-0a1b2c3d"}}
			r.FindingIDs = []string{"SEC-0a1b2c3d"}
			r.Counts = finding.Counts{P0: 1, P1: 0}
			r.Consensus = "needs_major_work"
			r.Reports = []state.Report{{Role: "reviewer-1", Summary: "a hard-coded token", Full: "# full"}}
			r.Usage = []state.Usage{{Role: "reviewer-1", Usage: tokens.Usage{Input: 1200, Cached: 900, Output: 300}, CostUSD: 0.0048}}
		}),
		a.Complete(1, state.PhaseCommented, func(r *state.Round) {
			r.Comments = []state.Comment{{Kind: "review", Tag: "ocdx:run=x round=1 kind=review", URL: "https://github.com/owner/repo/pull/7#issuecomment-1"}}
		}),
		a.Complete(1, state.PhaseFixed, func(r *state.Round) {
			r.Fix = &state.FixResult{Status: state.FixDeclined, Fixed: []finding.FixedIssue{{FindingID: "SEC-0a1b2c3d", CommitSha: "abc1234"}},
				Rejected: []finding.RejectedIssue{}, Commits: []finding.Commit{{Sha: "abc1234", Message: "fix: no token"}}, Verified: true}
		}),
		func() error { _, err := a.StartRound(2, "fedcba9876543210"); return err }(),
		a.Complete(2, state.PhaseReviewed, func(r *state.Round) { r.StuckIDs = []string{"SEC-0a1b2c3d"} }),
		a.UpdateWIP(func(w *state.WIP) {
			w.Phase, w.NextStep, w.LastCommit = "testing", "fix the token test", "abc1234"
			w.Verification = []verify.Result{{Command: "dx lint", OK: false, ExitCode: 1, Duration: 1500 * time.Millisecond}}
		}),
		a.End(state.OutcomeBlocked, "stuck findings"),
	}
	if err := errors.Join(steps...); err != nil {
		t.Fatal(err)
	}
	b, err := st.Begin(otherKey, "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.End(state.OutcomeConverged, ""); err != nil {
		t.Fatal(err)
	}
}

// --- flag parsing ---

func TestStateFlagParsing(t *testing.T) {
	d, _, _ := stateTestDeps(t.TempDir(), false)
	show, err := ParseShow(d, []string{"--pr", "12", "--json", "-R", "ghe.io/o/r"})
	if err != nil || show.PR != 12 || show.Export == nil || show.Repo != "ghe.io/o/r" {
		t.Errorf("show: %+v, %v", show, err)
	}
	clear, err := ParseClear(d, []string{"--pr=3", "--yes"})
	if err != nil || clear.PR != 3 || !clear.Yes || clear.Repo != "" {
		t.Errorf("clear: %+v, %v", clear, err)
	}
	bad := map[string][]string{
		"show --pr x":        {"--pr", "x"},
		"show --pr 0":        {"--pr", "0"},
		"show --pr -3":       {"--pr=-3"},
		"show extra arg":     {"extra"},
		"show unknown flag":  {"--all"},
		"show bad repo":      {"-R", "a/b/c/d"},
		"show branch and PR": {"7", "--branch", "feature"},
		"show branch and -R": {"--branch", "feature", "-R", "o/r"},
	}
	for name, args := range bad {
		var ue *cmdutil.UsageError
		if _, err := ParseShow(d, args); !errors.As(err, &ue) || !strings.Contains(ue.Usage, "gh ocdx state show") {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
	if clear, err := ParseClear(d, []string{"--branch", "feature", "--yes"}); err != nil || clear.Branch != "feature" || clear.PR != 0 {
		t.Errorf("clear --branch: %+v, %v", clear, err)
	}
	for _, args := range [][]string{{}, {"--yes"}, {"--pr", "1", "2"}, {"--pr", "0", "--yes"}, {"3", "--branch", "x", "--yes"}} {
		var ue *cmdutil.UsageError
		if _, err := ParseClear(d, args); !errors.As(err, &ue) {
			t.Errorf("clear %v: %v, want a usage error", args, err)
		}
	}
}

// --- run functions ---

func TestStateShowTable(t *testing.T) {
	dir := t.TempDir()
	seedState(t, dir)
	d, out, _ := stateTestDeps(dir, false)
	if err := stateShow(d, &ShowOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "PR ") {
		t.Fatalf("table:\n%s", out)
	}
	// Stable order: by key.
	for i, want := range []string{"github.com/other/repo#1 ", "github.com/owner/repo#7 "} {
		if !strings.HasPrefix(lines[i+1], want) {
			t.Errorf("line %d = %q, want %q first", i+1, lines[i+1], want)
		}
	}
	if f := strings.Fields(lines[2]); len(f) != 10 || f[1] != "1" || f[5] != "blocked" || f[6] != "2" || f[7] != "1" || f[8] != "testing" || f[9] != "-" {
		t.Errorf("row %q", lines[2])
	}

	out.Reset()
	if err := stateShow(d, &ShowOptions{Export: &cmdutil.Exporter{}, Repo: "github.com/owner/repo"}); err != nil {
		t.Fatal(err)
	}
	var list []struct {
		PR    report.PRRef
		Stuck int
	}
	if err := json.Unmarshal(out.Bytes(), &list); err != nil || len(list) != 1 || list[0].PR != (report.PRRef{Number: 7, Repository: "owner/repo", URL: "https://github.com/owner/repo/pull/7"}) || list[0].Stuck != 1 {
		t.Fatalf("--json -R: %v %+v\n%s", err, list, out)
	}
}

func TestStateShowOnePR(t *testing.T) {
	dir := t.TempDir()
	seedState(t, dir)
	d, out, _ := stateTestDeps(dir, false)
	if err := stateShow(d, &ShowOptions{PR: 7, Repo: "github.com/owner/repo"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# github.com/owner/repo#7", "No run is working on it.",
		"## Stuck findings (1)", "- SEC-0a1b2c3d (since run ",
		"- Phase: testing", "- Next step: fix the token test", "`dx lint` failed (exit 1)",
		"## Runs (1)", "review-loop, blocked", "stuck findings",
		"- Round 1, head 0123456: reviewed, commented, fixed",
		"  - Findings: 1 (P0 1, P1 0, P2 0, P3 0)", "  - Consensus: needs_major_work",
		"  - Posted review: https://github.com/owner/repo/pull/7#issuecomment-1",
		"  - Fix: declined", "  - Fixed: SEC-0a1b2c3d", "  - Commits: abc1234",
		"  - Report of reviewer-1: a hard-coded token", "  - Tokens of reviewer-1: 1200 in (900 cached) / 300 out, estimated ~$0.0048\n",
		"- Round 2, head fedcba9: reviewed", "  - Stuck: SEC-0a1b2c3d",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}

	out.Reset()
	if err := stateShow(d, &ShowOptions{PR: 7, Repo: "github.com/owner/repo", Export: &cmdutil.Exporter{}}); err != nil {
		t.Fatal(err)
	}
	var pr struct {
		PR   report.PRRef
		Runs []struct {
			Rounds []struct{ Findings json.RawMessage }
		}
		WIP *struct{ Verification []map[string]any }
	}
	if err := json.Unmarshal(out.Bytes(), &pr); err != nil {
		t.Fatal(err)
	}
	if pr.PR.Number != 7 || len(pr.Runs) != 1 || len(pr.Runs[0].Rounds) != 2 || pr.WIP == nil || !bytes.Contains(pr.Runs[0].Rounds[0].Findings, []byte(`"id": "SEC-0a1b2c3d"`)) {
		t.Errorf("--json: %s", out)
	}
	// Durations in seconds, as in every verb's JSON.
	if v := pr.WIP.Verification; len(v) == 0 || v[0]["durationSeconds"] == nil || v[0]["duration"] != nil {
		t.Errorf("--json verification: %+v", v)
	}

	out.Reset()
	if err := stateShow(d, &ShowOptions{PR: 8, Repo: "github.com/owner/repo"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "Nothing recorded for github.com/owner/repo#8.\n" {
		t.Errorf("unknown PR: %q", out)
	}
}

func TestStateShowMarksARunningRun(t *testing.T) {
	dir := t.TempDir()
	a, err := state.New(filepath.Join(dir, "state.db"), nil).Begin(testKey, "fix")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	d, out, _ := stateTestDeps(dir, false)
	if err := stateShow(d, &ShowOptions{}); err != nil {
		t.Fatal(err)
	}
	row := strings.Split(out.String(), "\n")[1]
	if !strings.Contains(row, "running") || !strings.Contains(row, "pid "+itoaStr(os.Getpid())) {
		t.Errorf("row %q", row)
	}
}

func itoaStr(n int) string { b, _ := json.Marshal(n); return string(b) }

func recorded(t *testing.T, dir string, k state.Key) bool {
	t.Helper()
	_, err := state.New(filepath.Join(dir, "state.db"), nil).PR(k)
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func TestStateClear(t *testing.T) {
	opts := func(p cmdutil.Prompter, yes bool) *ClearOptions {
		return &ClearOptions{PR: 7, Repo: "github.com/owner/repo", Yes: yes, Prompter: p}
	}
	t.Run("terminal, declined", func(t *testing.T) {
		dir := t.TempDir()
		seedState(t, dir)
		d, _, _ := stateTestDeps(dir, true)
		p := &cmdtest.Prompter{OK: false}
		if err := stateClear(d, opts(p, false)); !errors.Is(err, cmdutil.ErrCancelled) {
			t.Fatalf("declined: %v", err)
		}
		if len(p.Asked) != 1 || !strings.Contains(p.Asked[0], "github.com/owner/repo#7 (1 run, 1 stuck finding, work in progress)") {
			t.Errorf("asked %q", p.Asked)
		}
		if !recorded(t, dir, testKey) {
			t.Error("cleared although declined")
		}
	})
	t.Run("terminal, confirmed", func(t *testing.T) {
		dir := t.TempDir()
		seedState(t, dir)
		d, _, errOut := stateTestDeps(dir, true)
		if err := stateClear(d, opts(&cmdtest.Prompter{OK: true}, false)); err != nil {
			t.Fatal(err)
		}
		if out := errOut; out.String() != "✓ Cleared the state of github.com/owner/repo#7\n" || recorded(t, dir, testKey) || !recorded(t, dir, otherKey) {
			t.Errorf("out %q", out)
		}
	})
	t.Run("terminal, Ctrl-C", func(t *testing.T) {
		dir := t.TempDir()
		seedState(t, dir)
		d, _, _ := stateTestDeps(dir, true)
		if err := stateClear(d, opts(&cmdtest.Prompter{Err: cmdutil.ErrCancelled}, false)); !errors.Is(err, cmdutil.ErrCancelled) || !recorded(t, dir, testKey) {
			t.Fatalf("interrupted: %v", err)
		}
	})
	t.Run("no terminal", func(t *testing.T) {
		dir := t.TempDir()
		seedState(t, dir)
		d, _, _ := stateTestDeps(dir, false)
		p := &cmdtest.Prompter{OK: true}
		_, err := ParseClear(d, []string{"7", "-R", "owner/repo"})
		if !errors.Is(err, cmdutil.ErrNoTerminal) || cmdutil.ExitCode(t.Context(), err) != 2 || !strings.Contains(err.Error(), "--yes") || !recorded(t, dir, testKey) {
			t.Fatalf("without --yes: %v", err)
		}
		if err := stateClear(d, opts(p, true)); err != nil || recorded(t, dir, testKey) || len(p.Asked) != 0 {
			t.Fatalf("with --yes: %v", err)
		}
	})
	t.Run("nothing recorded", func(t *testing.T) {
		d, out, _ := stateTestDeps(t.TempDir(), true)
		p := &cmdtest.Prompter{OK: true}
		if err := stateClear(d, opts(p, false)); err != nil || len(p.Asked) != 0 || !strings.Contains(out.String(), "Nothing recorded") {
			t.Fatalf("%v %q", err, out)
		}
	})
	t.Run("held by a live run", func(t *testing.T) {
		dir := t.TempDir()
		a, err := state.New(filepath.Join(dir, "state.db"), nil).Begin(testKey, "review-loop")
		if err != nil {
			t.Fatal(err)
		}
		defer a.Release()
		d, _, _ := stateTestDeps(dir, false)
		err = stateClear(d, opts(nil, true))
		if !errors.Is(err, state.ErrLeaseHeld) || !strings.Contains(err.Error(), "pid "+itoaStr(os.Getpid())) {
			t.Fatalf("clear of a held PR: %v", err)
		}
	})
}

// --- the real binary ---

func stateBinaryEnv(t *testing.T) (*testkit.Env, string) {
	env := testkit.NewEnv(t)
	env.Set("GH_REPO", "owner/repo")
	return env, env.Vars["OCDX_STATE_DIR"]
}

func TestStateBinaryUsageErrorsTouchNothing(t *testing.T) {
	t.Parallel()
	env, dir := stateBinaryEnv(t)
	for _, args := range [][]string{
		{"state", "show", "--pr", "x"}, {"state", "show", "--pr", "0"}, {"state", "show", "extra"},
		{"state", "show", "--bogus"}, {"state", "clear"}, {"state", "clear", "--yes"},
		{"state", "clear", "--pr", "1", "-R", "a/b/c/d"}, {"state", "nope"},
	} {
		res := env.Run(t, args...)
		if res.Code != 2 || res.Stdout != "" || !strings.Contains(res.Stderr, "Usage: gh ocdx state") {
			t.Errorf("%v: %+v", args, res)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "state.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a usage error created the state file: %v", err)
	}
}

func TestStateBinaryEmpty(t *testing.T) {
	env, dir := stateBinaryEnv(t)
	res := env.Run(t, "state", "show")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "No pull requests recorded in "+filepath.Join(dir, "state.db")) {
		t.Errorf("show: %+v", res)
	}
	if res := env.Run(t, "state", "show", "--json"); res.Code != 0 || strings.TrimSpace(res.Stdout) != "[]" {
		t.Errorf("show --json: %+v", res)
	}
	if res := env.Run(t, "state", "show", "--pr", "4"); res.Code != 0 || res.Stdout != "Nothing recorded for github.com/owner/repo#4.\n" {
		t.Errorf("show --pr: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "state.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("showing created the state file: %v", err)
	}
}

func TestStateBinaryShowAndClear(t *testing.T) {
	env, dir := stateBinaryEnv(t)
	seedState(t, dir)
	res := env.Run(t, "state", "show")
	if res.Code != 0 || !strings.Contains(res.Stdout, "github.com/owner/repo#7") || !strings.Contains(res.Stdout, "blocked") {
		t.Fatalf("show: %+v", res)
	}
	res = env.Run(t, "state", "show", "7", "--json", "pr,stuck", "--jq", ".pr.url, (.stuck | length)")
	if res.Code != 0 || res.Stdout != "https://github.com/owner/repo/pull/7\n1\n" {
		t.Fatalf("show 7 --json pr,stuck --jq: %+v", res)
	}

	// Without a terminal, clear wants --yes and touches nothing.
	res = env.Run(t, "state", "clear", "--pr", "7")
	if res.Code != 2 || !strings.Contains(res.Stderr, "pass --yes") || !recorded(t, dir, testKey) {
		t.Fatalf("clear without --yes: %+v", res)
	}
	res = env.Run(t, "-R", "owner/repo", "state", "clear", "--pr", "7", "--yes")
	if res.Code != 0 || res.Stdout != "" || res.Stderr != "✓ Cleared the state of github.com/owner/repo#7\n" || recorded(t, dir, testKey) || !recorded(t, dir, otherKey) {
		t.Fatalf("clear --yes: %+v", res)
	}
}

func TestStateBinaryWhileARunHoldsThePR(t *testing.T) {
	env, dir := stateBinaryEnv(t)
	a, err := state.New(filepath.Join(dir, "state.db"), &state.Options{HeartbeatEvery: 50 * time.Millisecond}).Begin(testKey, "review-loop")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	res := env.Run(t, "state", "show")
	if res.Code != 0 || !strings.Contains(res.Stdout, "running") || !strings.Contains(res.Stdout, "pid "+itoaStr(os.Getpid())) {
		t.Errorf("show: %+v", res)
	}
	res = env.Run(t, "state", "clear", "--pr", "7", "--yes")
	if res.Code != 1 || !strings.Contains(res.Stderr, "already being worked on by run "+a.ID()) {
		t.Errorf("clear: %+v", res)
	}
}

func TestStateBinaryBadFiles(t *testing.T) {
	t.Parallel()
	env, dir := stateBinaryEnv(t)
	path := filepath.Join(dir, "state.db")

	// A busy file: the message comes after the lock timeout, not never.
	seedState(t, dir)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := env.Run(t, "state", "show")
	db.Close()
	if res.Code != 1 || !strings.Contains(res.Stderr, path) || !strings.Contains(res.Stderr, "busy") {
		t.Errorf("busy file: %+v", res)
	}

	// A foreign file is moved aside, never deleted, and a fresh one started.
	notes := []byte("my notes\n")
	if err := os.WriteFile(path, notes, 0o600); err != nil {
		t.Fatal(err)
	}
	res = env.Run(t, "state", "show")
	moved, _ := filepath.Glob(path + ".corrupt-*")
	if res.Code != 0 || len(moved) != 1 || !strings.Contains(res.Stderr, "the state file "+path+" was unreadable") || !strings.Contains(res.Stderr, moved[0]) {
		t.Fatalf("show on a foreign file: %+v, moved %v", res, moved)
	}
	if got, _ := os.ReadFile(moved[0]); !bytes.Equal(got, notes) {
		t.Errorf("foreign file changed to %q", got)
	}
}
