package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// A stalled GitHub read is cut at OCDX_GITHUB_TIMEOUT and tried again.
func TestGitHubTimeoutCutsAStalledReadAndRetries(t *testing.T) {
	t.Parallel()
	gh, env, _ := prFixture(t, map[string]string{"x.go": "package x\n"})
	env.Set("OCDX_GITHUB_TIMEOUT", "1s")
	gh.Fail(testkit.Fault{Kind: "graphql", Delay: 4 * time.Second})

	res := env.Run(t, "review-pr", "24", "--context-only")

	if res.Code != 0 || !strings.Contains(res.Stdout, "## Task: Review PR #24") {
		t.Fatalf("exit %d\n%s", res.Code, res.Stderr)
	}
	if n := gh.Count("graphql"); n != 2 {
		t.Errorf("want the stalled query cut and sent again (2 in all), got %d", n)
	}
}

// A stalled model call is cut at OCDX_MODEL_TIMEOUT and tried again.
func TestModelTimeoutCutsAStalledCallAndRetries(t *testing.T) {
	t.Parallel()
	gh, fm, env := modelFixture(t, "openai/gpt-rev")
	env.Set("OCDX_MODEL_TIMEOUT", "1s")
	fm.Script("gpt-rev", testkit.Stall(4*time.Second, "too late"),
		testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"COMMENT","body":"after the retry"}`}))

	res := env.Run(t, "review-pr", "24", "--yes")

	if res.Code != 0 {
		t.Fatalf("exit %d\n%s", res.Code, res.Stderr)
	}
	if got := gh.Reviews(repo, 24); len(got) != 1 || shown(got[0].Body) != "after the retry" {
		t.Errorf("want the answer of the retried call posted once, got %+v", got)
	}
	if n := len(fm.Requests("gpt-rev")); n != 2 {
		t.Errorf("want 2 model calls (the stalled one and its retry), got %d", n)
	}
}

// OCDX_MODEL_TIMEOUT bounds the silence, not the answer: a model that
// streams for longer than it, steadily, is read to the end in one call.
func TestModelTimeoutIsAnInactivityDeadline(t *testing.T) {
	t.Parallel()
	gh, fm, env := modelFixture(t, "openai/gpt-rev")
	env.Set("OCDX_MODEL_TIMEOUT", "1s")
	step := testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"COMMENT","body":"streamed slowly"}`})
	step.Pace = 400 * time.Millisecond // about 2.5 s in all
	fm.Script("gpt-rev", step)

	res := env.Run(t, "review-pr", "24", "--yes")

	if res.Code != 0 {
		t.Fatalf("exit %d\n%s", res.Code, res.Stderr)
	}
	if got := gh.Reviews(repo, 24); len(got) != 1 || shown(got[0].Body) != "streamed slowly" {
		t.Errorf("want the streamed answer posted, got %+v", got)
	}
	if n := len(fm.Requests("gpt-rev")); n != 1 {
		t.Errorf("want 1 model call, got %d", n)
	}
}

func TestBadTimeoutSettingStopsBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"OCDX_MODEL_TIMEOUT", "OCDX_GITHUB_TIMEOUT"} {
		gh, fm, env := modelFixture(t, "openai/gpt-rev")
		env.Set(name, "soon")

		res := env.Run(t, "review-pr", "24", "--yes")

		if res.Code != 1 || !strings.Contains(res.Stderr, name+`="soon" is not a duration`) {
			t.Errorf("%s: exit %d\n%s", name, res.Code, res.Stderr)
		}
		if gh.Count("")+len(fm.Requests("gpt-rev")) != 0 {
			t.Errorf("%s: a bad setting must stop before any request", name)
		}
	}
}
