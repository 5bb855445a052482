package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// inRepo makes env.Dir a repository's work tree holding files.
func inRepo(t *testing.T, env *testkit.Env, files map[string]string) {
	t.Helper()
	if err := os.Mkdir(filepath.Join(env.Dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(env.Dir, name), []byte(text), 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFirstRunConfigInitProposesTheRepositorysCommands: config init in a
// Go repository writes its usual checks, never dx, and config validate
// accepts them; a verify program that is not there is named, with what to
// do. The binary, as a newcomer runs it.
func TestFirstRunConfigInitProposesTheRepositorysCommands(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	inRepo(t, env, map[string]string{"go.mod": "module example.com/w\n"})
	env.Set("OPENAI_API_KEY", "sk-test")
	env.Set("ANTHROPIC_API_KEY", "sk-ant-test")

	res := env.RunBinary(t, "config", "init")

	wantCode(t, res, 0)
	data, err := os.ReadFile(env.Vars["OCDX_CONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"verify": ["go vet ./...", "go test ./..."],`) || strings.Contains(string(data), "\"dx ") {
		t.Errorf("wrote:\n%s", data)
	}
	wantContains(t, "stdout", res.Stdout, "Check the verify commands, taken from this repository's go.mod: go vet ./...; go test ./...")
	res = env.RunBinary(t, "config", "validate")
	wantCode(t, res, 0)

	// A verify program missing here, and a script named by its path that is
	// not executable: each named, with what to do.
	inRepoScript := filepath.Join(env.Dir, "check.sh")
	if err := os.WriteFile(inRepoScript, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env.WriteConfig(t, `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/a", "prFixModel": "ollama/a",
  "verify": ["go vet ./...", "dx lint", "./check.sh"]}`)
	res = env.RunBinary(t, "config", "validate")
	wantCode(t, res, 1)
	wantContains(t, "stdout", res.Stdout, `X verify[1] "dx lint"`, "dx is not on PATH; install it, or change the command",
		`X verify[2] "./check.sh"`, "is not an executable file", "chmod +x ./check.sh", "X "+env.Vars["OCDX_CONFIG"]+": 2 problems\n")
	if strings.Contains(res.Stdout, `verify[0]`) || strings.Contains(res.Stdout, "ok:") || res.Stderr != "" {
		t.Errorf("validate:\n%s\n%s", res.Stdout, res.Stderr)
	}
}

// TestFirstRunConfigInitAsksOnATerminal: in a terminal, config init
// proposes what the repository names; declined (or with nothing found), it
// asks for the commands and writes what was typed.
func TestFirstRunConfigInitAsksOnATerminal(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	inRepo(t, env, map[string]string{"go.mod": "module example.com/w\n"})

	term := env.StartTerminal(t, "config", "init")
	term.Expect("go vet ./...")
	term.Expect("Use them?")
	term.Send("n" + testkit.Enter)
	term.Expect("Verify command 1:")
	term.Send("make check" + testkit.Enter)
	term.Expect("Verify command 2:")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	data, err := os.ReadFile(env.Vars["OCDX_CONFIG"])
	if err != nil || !strings.Contains(string(data), `"verify": ["make check"],`) {
		t.Errorf("wrote %v:\n%s", err, data)
	}
}

// TestFirstRunNoVerifyCommandsPushesNothing: with no verify commands in
// the configuration nor in the base branch's .ocdx.json, review-loop and
// fix refuse before any model call (exit 1) and say where to set them;
// --dry-run still reviews; the base branch's .ocdx.json is enough.
func TestFirstRunNoVerifyCommandsPushesNothing(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.env.WriteConfig(t, `{"reviewerModels": ["openai/rev-a"], "commentsAnalyzerModel": "openai/analyzer", "prFixModel": "ollama/fixer"}`)
	lf.approveRound()

	for _, args := range [][]string{{"review-loop", "--yes"}, {"fix", "--yes"}} {
		res := lf.env.RunBinary(t, args...)
		wantCode(t, res, 1)
		wantContains(t, args[0]+" stderr", res.Stderr, "no verify commands", "main has no .ocdx.json",
			`add "verify": ["make test"] to your configuration ~/.config/gh-ocdx/config.json`, "or to .ocdx.json on main", "--dry-run")
		if strings.Contains(res.Stderr, "dx lint") || strings.Contains(res.Stderr, "dx build") {
			t.Errorf("%s mentions dx:\n%s", args[0], res.Stderr)
		}
	}
	for _, m := range []string{"rev-a", "analyzer"} {
		if n := len(lf.fm.Requests(m)); n != 0 {
			t.Errorf("%s was called %d times", m, n)
		}
	}
	if n := lf.fix.Count(); n != 0 {
		t.Errorf("the fix model was called %d times", n)
	}
	if k := lf.kinds(); len(k) != 0 {
		t.Errorf("posted %v", k)
	}

	res := lf.run("--dry-run")
	wantCode(t, res, 0)
}

func TestFirstRunBaseBranchVerifyIsEnough(t *testing.T) {
	t.Parallel()
	r := testkit.NewRepo(t, "main", "feature/x",
		map[string]string{".ocdx.json": `{"verify": ["true"]}`, "x.go": "package x\n"},
		map[string]string{"x.go": "package x\n\nvar X = 1\n"})
	gh, fm, env := testkit.NewGitHub(t), testkit.NewFakeModel(t), testkit.NewEnv(t)
	gh.AddPR(repo, testkit.PR{Number: 42, Title: "X", Author: "mona", HeadRef: r.Head, BaseRef: r.Base, Remote: r.Remote, Diff: r.Diff(t)})
	gh.Configure(env, repo)
	fm.Configure(env)
	env.Dir = r.Clone
	env.WriteConfig(t, `{"reviewerModels": ["openai/rev-a"], "commentsAnalyzerModel": "openai/analyzer", "prFixModel": "openai/fixer"}`)
	fm.Script("rev-a", reviewerReply("reviewer-1", "approve"))
	fm.Script("analyzer", analyzerReply())

	res := env.Run(t, "review-loop", "42", "--yes")

	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "verify (from .ocdx.json on main at ")
}
