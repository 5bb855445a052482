package cmd

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
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
			r, err := cmdutil.CurrentRepo(&cmdutil.Deps{Getenv: os.Getenv}, o.Repo) // GH_REPO, once the configuration is read
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
			d, _, _ := cmdtest.Deps()
			d.IO.StdinTTY, d.IO.StdoutTTY = tc.tty, tc.tty
			opts, err := parseFix(d, tc.args)
			if tc.wantErr != "" {
				cmdtest.WantUsageError(t, err, tc.wantErr)
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

func TestChooseResume(t *testing.T) {
	wip := &state.WIP{RunID: "r", Phase: "fixing (attempt 1 of 3)"}
	withWIP := state.PR{Key: state.NewKey("h", "o", "r", 24), WIP: wip}
	none := state.PR{Key: state.NewKey("h", "o", "r", 24)}
	d, _, _ := cmdtest.Deps()

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

	d.IO.StdinTTY, d.IO.StdoutTTY = true, true
	for pick, want := range map[int]*state.WIP{0: wip, 1: nil} {
		p := &cmdtest.Prompter{Pick: pick}
		got, err := chooseResume(d, &FixOptions{Prompter: p}, withWIP)
		if got != want || err != nil || len(p.Asked) != 1 || !strings.Contains(p.Asked[0], "fixing (attempt 1 of 3)") {
			t.Errorf("pick %d: %v %v %v", pick, got, err, p.Asked)
		}
	}
	if _, err := chooseResume(d, &FixOptions{Prompter: &cmdtest.Prompter{Pick: 2}}, withWIP); !errors.Is(err, cmdutil.ErrCancelled) {
		t.Errorf("abort: %v", err)
	}
	if _, err := chooseResume(d, &FixOptions{Prompter: &cmdtest.Prompter{Err: cmdutil.ErrCancelled}}, withWIP); !errors.Is(err, cmdutil.ErrCancelled) {
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
