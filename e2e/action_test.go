package e2e

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"gopkg.in/yaml.v3"
)

// The GitHub Action's script (action/run.sh, which action.yml calls) runs
// review-loop through gh against the fakes, as a workflow step would: it
// writes the outcome and exit code to $GITHUB_OUTPUT, the run's summary to
// $GITHUB_STEP_SUMMARY (on failure too, quoting the error, and linking the
// report it posted), and exits with review-loop's code.
func TestActionScriptWritesOutputsAndSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		rounds     func(lf *loopFix)
		args       string
		code       int
		outcome    string
		summary    []string
		notSummary []string
		checkRun   string // the input check-run; "": not set
		check      string // the gh-ocdx check run's conclusion; "": none
	}{
		{"converged", func(lf *loopFix) { lf.approveRound() }, "--max-tokens 900000", 0, "converged",
			[]string{"## gh-ocdx review-loop: PR #31", "**converged** (exit 0): consensus approve", "| 1 | `", "No P0–P2 finding remains.",
				"[The report on the pull request](https://", "#pullrequestreview-", "/pull/31)"},
			[]string{"converged: converged", "converged** (exit 0): converged"}, "", "success"},
		// The check run is on by default; the input turns it off.
		{"check run off", func(lf *loopFix) { lf.approveRound() }, "", 0, "converged", []string{"**converged** (exit 0)"}, nil, "false", ""},
		{"check run not a boolean", func(lf *loopFix) {}, "", 2, "error", []string{"**error** (exit 2)", "check-run: yes is not true or false"}, nil, "yes", ""},
		{"blocked", func(lf *loopFix) { lf.findingRound(cacheBug); lf.findingRound(cacheBug) }, "", 3, "blocked",
			[]string{"**blocked** (exit 3): manual intervention required", "| 2 | `", "Remaining P0–P2: " + cacheBug.id(),
				"[The report on the pull request](https://"}, nil, "", "failure"},
		// Shell in an input is words, not commands: review-loop refuses them.
		{"shell in args", func(lf *loopFix) {}, "; touch pwned $(touch pwned) `touch pwned`", 2, "error",
			[]string{"**error** (exit 2)", "    error: unexpected argument", "The step's log has the whole run."}, nil, "", ""},
		// actions/checkout without ref: the PR's merge commit, detached. The
		// error says what to give the checkout, and the summary quotes it.
		{"detached checkout", func(lf *loopFix) { testkit.Git(t, lf.repo.Clone, "checkout", "--quiet", "--detach") }, "", 1, "error",
			[]string{"**error** (exit 1): the run stopped before its first round.", "    error: HEAD is detached", "ref: ${{ github.head_ref }}"},
			[]string{"gh pr checkout"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath("jq"); err != nil {
				t.Fatal("jq is not on PATH: install the Debian package jq (.ci/run does)")
			}
			lf := newLoop(t, nil)
			tc.rounds(lf)
			installBuilt(t, lf.env)
			outputs, summary := filepath.Join(t.TempDir(), "output"), filepath.Join(t.TempDir(), "summary")
			for k, v := range map[string]string{"INPUT_PR": "", "EVENT_PR": "31", "INPUT_VERSION": "installed", "INPUT_ARGS": tc.args,
				"INPUT_CHECK_RUN": tc.checkRun, "GITHUB_OUTPUT": outputs, "GITHUB_STEP_SUMMARY": summary, "GITHUB_ACTIONS": "true"} {
				lf.env.Set(k, v)
			}

			res := lf.env.RunWith(t, nil, "bash", filepath.Join(testkit.ModuleRoot(), "action", "run.sh"))

			if res.Code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", res.Code, tc.code, res.Stderr)
			}
			out, _ := os.ReadFile(outputs)
			if want := fmt.Sprintf("outcome=%s\nexit-code=%d\n", tc.outcome, tc.code); string(out) != want {
				t.Errorf("GITHUB_OUTPUT:\n%s\nwant:\n%s", out, want)
			}
			sum, _ := os.ReadFile(summary)
			wantContains(t, "GITHUB_STEP_SUMMARY", string(sum), tc.summary...)
			for _, bad := range tc.notSummary {
				if strings.Contains(string(sum), bad) {
					t.Errorf("GITHUB_STEP_SUMMARY says %q:\n%s", bad, sum)
				}
			}
			if tc.code == 1 {
				wantContains(t, "the step's log", res.Stderr, "ref: ${{ github.head_ref }}")
			}
			var checks []string
			for _, cr := range lf.gh.CheckRuns(repo) {
				checks = append(checks, cr.Conclusion)
			}
			if want := []string{tc.check}; tc.check == "" && len(checks) > 0 || tc.check != "" && !slices.Equal(checks, want) {
				t.Errorf("check runs %q, want %q", checks, tc.check)
			}
			if _, err := os.Stat(filepath.Join(lf.env.Dir, "pwned")); err == nil {
				t.Error("an input ran a command")
			}
		})
	}
}

// actionStep runs action/run.sh as a workflow step would: in env, with the
// runner's variables (outputs, summary, temp directory) and vars for the
// step's env. It returns the result, GITHUB_OUTPUT and the summary.
func actionStep(t *testing.T, env *testkit.Env, vars map[string]string) (res testkit.Result, outputs, summary string) {
	t.Helper()
	for _, tool := range []string{"gh", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH: install the Debian package %s (.ci/run does)", tool, tool)
		}
	}
	dir := t.TempDir()
	out, sum, tmp := filepath.Join(dir, "output"), filepath.Join(dir, "summary"), filepath.Join(dir, "runner-temp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"GITHUB_OUTPUT": out, "GITHUB_STEP_SUMMARY": sum, "RUNNER_TEMP": tmp} {
		env.Set(k, v)
	}
	for k, v := range vars {
		env.Set(k, v)
	}
	if env.Vars["INPUT_VERSION"] != "installed" && strings.HasPrefix(filepath.Base(env.Vars["XDG_DATA_HOME"]), sharedDataHome) {
		t.Fatal("the action would install a release over the extension installBuilt shares")
	}
	res = env.RunWith(t, nil, "bash", filepath.Join(testkit.ModuleRoot(), "action", "run.sh"))
	o, _ := os.ReadFile(out)
	s, _ := os.ReadFile(sum)
	return res, string(o), string(s)
}

// installBuilt gives env the built binary as the gh extension an earlier
// step would have installed (the input version: installed). gh installs
// it once per test process, with `gh extension install .` from the
// directory named gh-ocdx that holds the build, into a data directory
// (XDG_DATA_HOME, where gh keeps its extensions) that every env given it
// shares: the tests that use it only run it, and a gh start costs a tenth
// of a second of CPU. What it proves of the install is checked here, for
// whichever test installs first.
func installBuilt(t *testing.T, env *testkit.Env) {
	t.Helper()
	if _, err := exec.LookPath("gh"); err != nil {
		t.Fatal("gh is not on PATH: install the Debian package gh (.ci/run does)")
	}
	installed.once.Do(func() {
		installed.err = errors.New("the test that installed the extension stopped first") // if installOnce ends the goroutine
		installed.dataHome, installed.err = installOnce(t, env)
	})
	if installed.err != nil {
		t.Fatal(installed.err)
	}
	env.Set("XDG_DATA_HOME", installed.dataHome)
}

// sharedDataHome starts the name of the data directory installBuilt shares.
const sharedDataHome = "gh-shared-data-"

var installed struct {
	once     sync.Once
	dataHome string
	err      error
}

// installOnce runs gh extension install . in a copy of env whose data
// directory lives as long as the test process (under its temporary
// directory, which e2e's TestMain removes), and checks that gh linked the
// build where ghExtension looks.
func installOnce(t *testing.T, env *testkit.Env) (string, error) {
	dataHome, err := os.MkdirTemp("", sharedDataHome)
	if err != nil {
		return "", err
	}
	install := testkit.Env{Root: env.Root, Dir: filepath.Dir(testkit.Binary(t)), Vars: maps.Clone(env.Vars)}
	install.Set("XDG_DATA_HOME", dataHome)
	if res := install.RunWith(t, nil, "gh", "extension", "install", "."); res.Code != 0 {
		return "", fmt.Errorf("gh extension install . exited %d:\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(ghExtension(&install)); err != nil {
		return "", fmt.Errorf("gh extension install . left no extension where gh keeps them: %v", err)
	}
	return dataHome, nil
}

// ghExtension is where gh keeps the extension ocdx of env's user.
func ghExtension(env *testkit.Env) string {
	return filepath.Join(env.Vars["XDG_DATA_HOME"], "gh", "extensions", "gh-ocdx")
}

// The config input names a file in the repository, and the action reads it
// from the PR's base branch: a PR whose head changes that file (other
// models, a verify command of its own) runs with the base's.
func TestActionReadsTheConfigFromTheBaseBranch(t *testing.T) {
	t.Parallel()
	const path = ".github/ocdx-config.json"
	base := `{"reviewerModels": ["openai/rev-a", "anthropic/rev-b"], "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer", "verify": ["true"]}`
	head := `{"reviewerModels": ["openai/head-a", "anthropic/head-b"], "commentsAnalyzerModel": "openai/head-analyzer",
  "prFixModel": "ollama/head-fixer", "verify": ["touch verify-from-the-head"]}`

	t.Run("the head changes it", func(t *testing.T) {
		t.Parallel()
		lf := newLoop(t, nil)
		lf.approveRound()
		// Only the base's file works: neither the head's nor the runner's own.
		lf.env.WriteConfig(t, "{ not a configuration")
		commitTo(t, lf.repo, lf.repo.Base, map[string]string{path: base})
		commitTo(t, lf.repo, lf.repo.Head, map[string]string{path: head})
		installBuilt(t, lf.env)

		res, outputs, _ := actionStep(t, lf.env, map[string]string{"EVENT_PR": "31", "INPUT_VERSION": "installed", "INPUT_CONFIG": "./" + path})

		wantCode(t, res, 0)
		if outputs != "outcome=converged\nexit-code=0\n" {
			t.Errorf("GITHUB_OUTPUT:\n%s", outputs)
		}
		wantContains(t, "the step's log", res.Stdout+res.Stderr, "the configuration is "+path+" of main (")
		for _, m := range []string{"head-a", "head-b", "head-analyzer"} {
			if n := len(lf.fm.Requests(m)); n > 0 {
				t.Errorf("the head's model %s was called %d times", m, n)
			}
		}
		if len(lf.fm.Requests("rev-a")) == 0 {
			t.Error("the base's reviewer rev-a was never called")
		}
		if _, err := os.Stat(filepath.Join(lf.repo.Clone, "verify-from-the-head")); err == nil {
			t.Error("the head's verify command ran")
		}
	})

	t.Run("only the head has it", func(t *testing.T) {
		t.Parallel()
		lf := newLoop(t, nil)
		commitTo(t, lf.repo, lf.repo.Head, map[string]string{path: head})
		installBuilt(t, lf.env)

		res, outputs, _ := actionStep(t, lf.env, map[string]string{"EVENT_PR": "31", "INPUT_VERSION": "installed", "INPUT_CONFIG": path})

		if res.Code != 1 {
			t.Fatalf("exit %d, want 1:\n%s", res.Code, res.Stderr)
		}
		wantContains(t, "stderr", res.Stderr, "cannot read the configuration "+path+" from PR #31's base branch main (",
			"Not Found", "read from the base branch, never from the PR's head: commit the file to main first")
		if outputs != "outcome=error\nexit-code=1\n" {
			t.Errorf("GITHUB_OUTPUT:\n%s", outputs)
		}
		if n := len(lf.fm.Requests("head-a")) + len(lf.fm.Requests("rev-a")); n > 0 {
			t.Errorf("%d model calls, want none", n)
		}
	})

	// A path that leaves the repository, or that would change the API
	// request it becomes part of, is refused before any request.
	for _, bad := range []string{"../config.json", "/etc/ocdx.json", ".github/../../config.json", "a/./b.json",
		"c.json?ref=feature", "c.json#", "a b.json", ".github/"} {
		t.Run(bad, func(t *testing.T) {
			t.Parallel()
			env, gh := testkit.NewEnv(t), testkit.NewGitHub(t)
			gh.Configure(env, repo)

			res, outputs, _ := actionStep(t, env, map[string]string{"EVENT_PR": "31", "INPUT_VERSION": "installed", "INPUT_CONFIG": bad})

			if res.Code != 2 {
				t.Fatalf("exit %d, want 2:\n%s", res.Code, res.Stderr)
			}
			wantContains(t, "stderr", res.Stderr, "is not a file's path in the repository")
			if outputs != "outcome=error\nexit-code=2\n" {
				t.Errorf("GITHUB_OUTPUT:\n%s", outputs)
			}
			if n := gh.Count(""); n > 0 {
				t.Errorf("%d requests to GitHub, want none", n)
			}
		})
	}
}

// commitTo commits files to branch of r's clone and pushes it, leaving the
// clone on the PR's head branch.
func commitTo(t *testing.T, r *testkit.Repo, branch string, files map[string]string) {
	t.Helper()
	testkit.Git(t, r.Clone, "checkout", "--quiet", branch)
	testkit.WriteFiles(t, r.Clone, files)
	testkit.Git(t, r.Clone, "add", "-A")
	testkit.Git(t, r.Clone, "commit", "--quiet", "-m", "change "+branch)
	testkit.Git(t, r.Clone, "push", "--quiet", "origin", branch)
	testkit.Git(t, r.Clone, "checkout", "--quiet", r.Head)
}

// platform is the name of this machine's binary among a release's assets
// (script/build.sh's dist/<os>-<arch>).
var platform = runtime.GOOS + "-" + runtime.GOARCH

// markerBinary is a release binary that is not gh-ocdx: if anything runs
// it, it leaves the file marker.
func markerBinary(marker string) []byte {
	return []byte("#!/bin/sh\ntouch '" + marker + "'\necho 'gh-ocdx v6.6.6'\n")
}

// ghOcdxRelease is release tag at commit: bin as this machine's asset, and
// a checksums file listing sums (asset → content whose SHA-256 to list) as
// script/build.sh writes it; nil sums lists bin's.
func ghOcdxRelease(tag, commit string, bin []byte, sums map[string][]byte) testkit.Release {
	if sums == nil {
		sums = map[string][]byte{platform: bin}
	}
	var lines []string
	for name, body := range sums {
		lines = append(lines, fmt.Sprintf("%x  %s", sha256.Sum256(body), name))
	}
	lines = append(lines, fmt.Sprintf("%x  %s", sha256.Sum256([]byte("another platform")), "windows-arm64.exe"))
	sort.Strings(lines)
	return testkit.Release{Tag: tag, Commit: commit, Assets: map[string][]byte{
		platform: bin, "windows-arm64.exe": []byte("another platform"),
		"gh-ocdx_" + tag + "_checksums.txt": []byte(strings.Join(lines, "\n") + "\n")}}
}

// releaseBinary is what a release's binary holds in these tests: a script
// that runs the built binary, and then every byte value, which the script
// never reaches but the download must keep (the checksum covers them). The
// 20 MB build itself would only make each install hash and move more
// bytes (a tenth of a second of CPU in each of gh, sha256sum and the
// fake), and proves nothing more of the download, the checksum or the
// install.
func releaseBinary(t *testing.T) []byte {
	t.Helper()
	bin := []byte("#!/bin/sh\nexec '" + strings.ReplaceAll(testkit.Binary(t), "'", `'\''`) + "' \"$@\"\n")
	for b := range 256 {
		bin = append(bin, byte(b))
	}
	return bin
}

// approvedWithTheBinary is a PR its reviewers approve, and a release
// binary that runs the built one (releaseBinary).
func approvedWithTheBinary(t *testing.T) ([]byte, *loopFix) {
	t.Helper()
	lf := newLoop(t, nil)
	lf.approveRound()
	return releaseBinary(t), lf
}

// The action installs the release it is pinned at only after the binary's
// SHA-256 matched the one the release's checksums file lists: a binary
// that does not match, or that the file does not list, is never run.
func TestActionRunsTheReleaseBinaryOnlyWhenItsChecksumMatches(t *testing.T) {
	t.Parallel()
	const tag, commit = "v1.2.0", "5d2e0f4c9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d"

	t.Run("it matches", func(t *testing.T) {
		t.Parallel()
		bin, lf := approvedWithTheBinary(t)
		lf.gh.AddRelease("ocdx/gh-ocdx", ghOcdxRelease(tag, commit, bin, nil))

		res, outputs, summary := actionStep(t, lf.env, map[string]string{"EVENT_PR": "31", "ACTION_REF": tag, "ACTION_REPOSITORY": "ocdx/gh-ocdx"})

		if res.Code != 0 {
			t.Fatalf("exit %d, want 0:\n%s", res.Code, res.Stderr)
		}
		wantContains(t, "the step's log", res.Stdout+res.Stderr, platform+" of release "+tag+" matches its SHA-256 in gh-ocdx_"+tag+"_checksums.txt")
		if outputs != "outcome=converged\nexit-code=0\n" {
			t.Errorf("GITHUB_OUTPUT:\n%s", outputs)
		}
		wantContains(t, "GITHUB_STEP_SUMMARY", summary, "**converged** (exit 0)")
		if n := lf.gh.Count("download"); n != 2 {
			t.Errorf("%d downloads through the assets' redirects, want 2 (the binary and the checksums file)", n)
		}
		// Where the cases below look for it.
		if _, err := os.Lstat(ghExtension(lf.env)); err != nil {
			t.Errorf("the binary is not where gh keeps its extensions: %v", err)
		}
	})

	for _, tc := range []struct {
		name, want string
		release    func(marker string) testkit.Release
	}{
		{"the binary was changed", "has SHA-256", func(marker string) testkit.Release {
			r := ghOcdxRelease(tag, commit, []byte("the release's binary"), nil)
			r.Assets[platform] = markerBinary(marker)
			return r
		}},
		{"the checksums file does not list it", "lists no single SHA-256 for " + platform, func(marker string) testkit.Release {
			return ghOcdxRelease(tag, commit, markerBinary(marker), map[string][]byte{"linux-mips": markerBinary(marker)})
		}},
		{"it lists it twice", "lists no single SHA-256 for " + platform, func(marker string) testkit.Release {
			r := ghOcdxRelease(tag, commit, markerBinary(marker), nil)
			sums := "gh-ocdx_" + tag + "_checksums.txt"
			r.Assets[sums] = append(r.Assets[sums], fmt.Sprintf("%x  %s\n", sha256.Sum256(nil), platform)...)
			return r
		}},
		{"the release has no checksums file", "has no checksums file gh-ocdx_" + tag + "_checksums.txt", func(marker string) testkit.Release {
			r := ghOcdxRelease(tag, commit, markerBinary(marker), nil)
			delete(r.Assets, "gh-ocdx_"+tag+"_checksums.txt")
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, gh := testkit.NewEnv(t), testkit.NewGitHub(t)
			gh.Configure(env, repo)
			marker := filepath.Join(t.TempDir(), "the-binary-ran")
			gh.AddRelease("ocdx/gh-ocdx", tc.release(marker))

			res, outputs, summary := actionStep(t, env, map[string]string{"EVENT_PR": "31", "ACTION_REF": tag, "ACTION_REPOSITORY": "ocdx/gh-ocdx"})

			if _, err := os.Stat(marker); err == nil {
				t.Error("the binary ran")
			}
			if res.Code != 1 {
				t.Fatalf("exit %d, want 1:\n%s", res.Code, res.Stderr)
			}
			wantContains(t, "stderr", res.Stderr, tc.want, "not run")
			if outputs != "outcome=error\nexit-code=1\n" {
				t.Errorf("GITHUB_OUTPUT:\n%s", outputs)
			}
			// The summary says why, not only where to look.
			wantContains(t, "GITHUB_STEP_SUMMARY", summary, "**error** (exit 1): the action stopped before review-loop ran", tc.want)
			// Where installBuilt saw gh keep an installed extension.
			if _, err := os.Lstat(ghExtension(env)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the binary was installed as a gh extension (%v)", err)
			}
		})
	}
}

// Pinned by commit SHA (uses: ocdx/gh-ocdx@<sha>), the action's ref names
// no release: it installs the release whose tag points at that commit, the
// highest vX.Y.Z of them (not a moving major tag on the same commit).
func TestActionPinnedByCommitSHAInstallsTheReleaseOfThatCommit(t *testing.T) {
	t.Parallel()
	const pinned, older = "5d2e0f4c9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d", "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"

	t.Run("a release's commit", func(t *testing.T) {
		t.Parallel()
		bin, lf := approvedWithTheBinary(t)
		marker := filepath.Join(t.TempDir(), "another-release-ran")
		lf.gh.AddRelease("ocdx/gh-ocdx", ghOcdxRelease("v1.1.0", older, markerBinary(marker), nil))
		lf.gh.AddRelease("ocdx/gh-ocdx", ghOcdxRelease("v1", pinned, markerBinary(marker), nil))
		lf.gh.AddRelease("ocdx/gh-ocdx", ghOcdxRelease("v1.2.0", pinned, bin, nil))
		lf.gh.AddRelease("ocdx/gh-ocdx", ghOcdxRelease("v1.2.0-rc.1", pinned, markerBinary(marker), nil))

		res, outputs, _ := actionStep(t, lf.env, map[string]string{"EVENT_PR": "31", "ACTION_REF": pinned, "ACTION_REPOSITORY": "ocdx/gh-ocdx"})

		if _, err := os.Stat(marker); err == nil {
			t.Error("another release's binary ran")
		}
		if res.Code != 0 {
			t.Fatalf("exit %d, want 0:\n%s", res.Code, res.Stderr)
		}
		wantContains(t, "the step's log", res.Stdout+res.Stderr, "pinned at "+pinned+", the commit of release v1.2.0",
			platform+" of release v1.2.0 matches its SHA-256")
		if outputs != "outcome=converged\nexit-code=0\n" {
			t.Errorf("GITHUB_OUTPUT:\n%s", outputs)
		}
	})

	t.Run("no release's commit", func(t *testing.T) {
		t.Parallel()
		env, gh := testkit.NewEnv(t), testkit.NewGitHub(t)
		gh.Configure(env, repo)
		marker := filepath.Join(t.TempDir(), "another-release-ran")
		gh.AddRelease("ocdx/gh-ocdx", ghOcdxRelease("v1.1.0", older, markerBinary(marker), nil))

		res, outputs, _ := actionStep(t, env, map[string]string{"EVENT_PR": "31", "ACTION_REF": pinned, "ACTION_REPOSITORY": "ocdx/gh-ocdx"})

		if _, err := os.Stat(marker); err == nil {
			t.Error("another release's binary ran")
		}
		if res.Code != 1 {
			t.Fatalf("exit %d, want 1:\n%s", res.Code, res.Stderr)
		}
		wantContains(t, "stderr", res.Stderr, "pinned at commit "+pinned+", and no release tag (vX.Y.Z) of ocdx/gh-ocdx points at it",
			"set the input version to a release tag")
		if outputs != "outcome=error\nexit-code=1\n" {
			t.Errorf("GITHUB_OUTPUT:\n%s", outputs)
		}
	})
}

// action.yml is valid YAML (a runner refuses an action whose file is not),
// and its inputs and contexts reach action/run.sh only as the step's
// variables: its run line holds no ${{ }} expression, which the runner
// would paste into the script's text.
func TestActionYAMLPassesEveryInputAsAVariable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(testkit.ModuleRoot(), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Description string
		}
		Outputs map[string]struct{ Description, Value string }
		Runs    struct {
			Using string
			Steps []struct {
				Run string
				Env map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatalf("action.yml is not valid YAML: %v", err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) != 1 {
		t.Fatalf("action.yml runs %q with %d steps, want one composite step", action.Runs.Using, len(action.Runs.Steps))
	}
	step := action.Runs.Steps[0]
	if strings.Contains(step.Run, "${{") {
		t.Errorf("the run line pastes an expression into the script: %s", step.Run)
	}
	if step.Run != `"$GITHUB_ACTION_PATH/action/run.sh"` {
		t.Errorf("the run line is %s, want only the script's path", step.Run)
	}
	for name, in := range action.Inputs {
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
		// A variable's name in bash has no '-': check-run is INPUT_CHECK_RUN.
		env := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if v := step.Env[env]; v != "${{ inputs."+name+" }}" {
			t.Errorf("input %s reaches the script as %s=%q, want ${{ inputs.%s }}", name, env, v, name)
		}
	}
	for _, name := range []string{"outcome", "exit-code"} {
		if out := action.Outputs[name]; out.Description == "" || out.Value != "${{ steps.run.outputs."+name+" }}" {
			t.Errorf("output %s: %+v", name, out)
		}
	}
}
