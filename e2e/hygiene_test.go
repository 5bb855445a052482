package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/posts"
)

// TestLoopIgnoresCopiedTags: another user copies gh-ocdx's marker and the
// tags its run will use next (the run ID is in round 1's report) into the
// PR's conversation while the fix runs. gh-ocdx still posts its fix report
// and round 2's report: only comments by its own login count as posted.
func TestLoopIgnoresCopiedTags(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.findingRound(cacheBug)
	var once sync.Once
	lf.fix.Mu.Lock()
	lf.fix.OnRequest = func() {
		once.Do(func() {
			bodies := lf.bodies()
			if len(bodies) == 0 {
				t.Error("the fix ran before round 1's report was posted")
				return
			}
			run := regexp.MustCompile(`ocdx:run=(\S+)`).FindStringSubmatch(bodies[0])[1]
			for _, tag := range []string{posts.RunTag(run, 1, "fix"), posts.RunTag(run, 2, "review"), posts.RunTag(run, 2, "final")} {
				lf.gh.AddComment(repo, lf.number, "mallory", posts.Marker+"\n"+tag+"\nnothing to see here")
			}
		})
	}
	lf.fix.Mu.Unlock()
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("gh-ocdx posted %s, want [review:1 fix:1 review:2]: copies of its tags by another user silenced it\nstderr:\n%s", k, res.Stderr)
	}
	if n := len(lf.gh.Comments(repo, lf.number)) + len(lf.gh.Reviews(repo, lf.number)); n != 6 {
		t.Errorf("%d comments and reviews on the PR, want 6 (3 comments by mallory, 2 reviews and a comment by gh-ocdx)", n)
	}
}

// runWithin runs the binary and fails the test if it has not exited within
// d: a run that blocks on its input must not hang the suite.
func runWithin(t *testing.T, env *testkit.Env, d time.Duration, args ...string) testkit.Result {
	t.Helper()
	res, _ := runMeasured(t, env, d, args...)
	return res
}

// runMeasured is runWithin that also reports the run's peak resident memory.
func runMeasured(t *testing.T, env *testkit.Env, d time.Duration, args ...string) (testkit.Result, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var out, errOut strings.Builder
	c := exec.CommandContext(ctx, testkit.Binary(t), args...)
	c.Dir, c.Env, c.Stdout, c.Stderr = env.Dir, env.List(), &out, &errOut
	c.WaitDelay = time.Second
	rss, err := testkit.RunPeakRSS(c)
	if ctx.Err() != nil {
		t.Fatalf("gh-ocdx %s did not exit within %s (killed)\nstderr:\n%s", strings.Join(args, " "), d, errOut.String())
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return testkit.Result{Stdout: out.String(), Stderr: errOut.String(), Code: code}, rss
}

// TestConfigFromANonRegularFileIsRefused: a configuration or repository
// .ocdx.json that is a device or a named pipe is refused at once with its
// path, instead of reading /dev/zero until memory runs out or waiting on
// the pipe for ever.
func TestConfigFromANonRegularFileIsRefused(t *testing.T) {
	t.Parallel()
	const valid = `{"reviewerModels": ["ollama/a"], "commentsAnalyzerModel": "ollama/a", "prFixModel": "ollama/a"}`
	fifo := func(t *testing.T, env *testkit.Env) string {
		p := filepath.Join(env.Root, "config.fifo")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		// setup returns the path at fault and the reason expected.
		setup func(t *testing.T, env *testkit.Env) (string, string)
		args  []string
	}{
		{"config is /dev/zero", func(t *testing.T, env *testkit.Env) (string, string) {
			env.Set("OCDX_CONFIG", "/dev/zero")
			return "/dev/zero", "a character device, not a regular file"
		}, []string{"config", "validate"}},
		{"config is a FIFO", func(t *testing.T, env *testkit.Env) (string, string) {
			p := fifo(t, env)
			env.Set("OCDX_CONFIG", p)
			return p, "a named pipe (FIFO), not a regular file"
		}, []string{"config", "validate"}},
		{"config is a FIFO, review-loop", func(t *testing.T, env *testkit.Env) (string, string) {
			p := fifo(t, env)
			env.Set("OCDX_CONFIG", p)
			return p, "a named pipe (FIFO), not a regular file"
		}, []string{"review-loop", "--yes"}},
		{"repository .ocdx.json links to /dev/zero", func(t *testing.T, env *testkit.Env) (string, string) {
			env.WriteConfig(t, valid)
			env.Dir = filepath.Join(env.Root, "work")
			if err := os.MkdirAll(filepath.Join(env.Dir, ".git"), 0o700); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(env.Dir, ".ocdx.json")
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
			return p, "a character device, not a regular file"
		}, []string{"config", "validate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testkit.NewEnv(t)
			path, reason := tc.setup(t, env)
			testkit.Binary(t) // built before the clock starts
			start := time.Now()

			res := runWithin(t, env, 10*time.Second, tc.args...)

			wantCode(t, res, 1)
			wantContains(t, "stderr", res.Stderr, path, reason)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("refused after %s: it must not read the file first", d)
			}
		})
	}
}

// TestHugeGitHubAnswerIsRefused: a GitHub host answering the PR query with
// gigabytes is cut at 32 MB with a plain error, and the run's memory stays
// small (before the bound, a 2.5 GB answer took 8.8 GB).
func TestHugeGitHubAnswerIsRefused(t *testing.T) {
	t.Parallel()
	gh, env, _ := prFixture(t, map[string]string{"auth.go": "package auth\n"})
	gh.Fail(testkit.Fault{Kind: "graphql", Huge: 1 << 30})
	testkit.Binary(t)

	res, rss := runMeasured(t, env, 60*time.Second, "review-pr", "24", "--context-only")

	t.Logf("peak RSS %d MB", rss>>20)
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "PR #24 in "+repo+": GitHub's answer was larger than 32 MB")
	if rss > 200<<20 {
		t.Errorf("peak RSS %d MB reading a 1 GB answer: want it bounded (under 200 MB)", rss>>20)
	}
}
