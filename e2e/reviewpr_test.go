// Package e2e runs the built gh-ocdx binary against the test kit's fakes over
// real sockets, as a user would run it.
package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

const repo = "octo/widgets"

// prFixture is a PR whose head branch lives in a real bare remote.
func prFixture(t *testing.T, headFiles map[string]string) (*testkit.GitHub, *testkit.Env, *testkit.Repo) {
	t.Helper()
	gh := testkit.NewGitHub(t)
	r := testkit.NewRepo(t, "main", "feature/login", map[string]string{"README.md": "# widgets\n", "auth.go": "package auth\n"}, headFiles)
	gh.AddIssue(repo, testkit.Issue{Number: 7, Title: "Login fails on Safari", Body: "steps…"})
	gh.AddPR(repo, testkit.PR{Number: 24, Title: "Fix login redirect", Body: "Fixes #7 by keeping the return URL.",
		Author: "mona", HeadRef: r.Head, BaseRef: r.Base, Remote: r.Remote, Diff: r.Diff(t), ClosingIssues: []int{7}})
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	return gh, env, r
}

func TestReviewPRContextOnly(t *testing.T) {
	t.Parallel()
	gh, env, r := prFixture(t, map[string]string{"auth.go": "package auth\n\nfunc Redirect() string { return \"/home\" }\n", "web/login.ts": "export const x = 1;\n"})

	res := env.Run(t, "review-pr", "24", "--context-only")

	if res.Code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	for _, want := range []string{
		"## Task: Review PR #24",
		"**Title:** Fix login redirect",
		"**Author:** mona",
		"**State:** OPEN",
		"Fixes #7 by keeping the return URL.",
		fmt.Sprintf("- #7: Login fails on Safari (https://%s/%s/issues/7)", gh.Host(), repo),
		"2 files changed, 3 insertions, 0 deletions\nauth.go\nweb/login.ts\n",
		"diff --git a/auth.go b/auth.go",
		"+func Redirect() string { return \"/home\" }",
		"### Definition of Done",
	} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("stdout lacks %q; got:\n%s", want, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, "Diff truncated") {
		t.Error("a small diff must not be marked truncated")
	}
	if got := gh.Count("graphql") + gh.Count("diff"); got != 2 || gh.Count("") != 2 {
		t.Errorf("want one GraphQL query and one diff request, got %+v", gh.Requests())
	}
	if len(gh.Comments(repo, 24))+len(gh.Reviews(repo, 24)) != 0 {
		t.Error("--context-only must post nothing")
	}
	_ = r
}

func TestReviewPRByURL(t *testing.T) {
	t.Parallel()
	gh, env, _ := prFixture(t, map[string]string{"auth.go": "package auth // v2\n"})
	env.Set("GH_REPO", "") // the URL alone names the repository

	res := env.Run(t, "review-pr", fmt.Sprintf("https://%s/%s/pull/24/files", gh.Host(), repo), "--context-only")

	if res.Code != 0 || !strings.Contains(res.Stdout, "## Task: Review PR #24") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.Code, res.Stdout, res.Stderr)
	}
}

// bigFiles returns n files of about size bytes each.
func bigFiles(n, size int) map[string]string {
	files := map[string]string{}
	for i := range n {
		var b strings.Builder
		for b.Len() < size {
			fmt.Fprintf(&b, "line %d of file %d: ünïcödé text to make the diff large\n", b.Len(), i)
		}
		files[fmt.Sprintf("src/file%03d.txt", i)] = b.String()
	}
	return files
}

func TestReviewPRTruncatesLargeDiff(t *testing.T) {
	t.Parallel()
	_, env, _ := prFixture(t, bigFiles(40, 4000)) // about 160KB of diff

	res := env.Run(t, "review-pr", "24", "--context-only")

	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	out := res.Stdout
	summary := strings.Index(out, "40 files changed, ")
	diff := strings.Index(out, "**Diff:**")
	notice := strings.Index(out, "[Diff truncated at 50KB. Use read_file <path> for a file at the PR's head, or pr_diff <path> for one file's diff.]")
	if summary < 0 || diff < 0 || notice < 0 || !(summary < diff && diff < notice) {
		t.Fatalf("want file summary, then the diff, then the notice; positions %d %d %d", summary, diff, notice)
	}
	if !strings.Contains(out, "src/file039.txt\n") {
		t.Error("the file list must name every file even when the diff is cut")
	}
	diffPart := out[diff+len("**Diff:**\n") : notice]
	if len(diffPart) > 50*1024 {
		t.Errorf("diff part is %d bytes, over 50KB", len(diffPart))
	}
	if len(diffPart) < 45*1024 {
		t.Errorf("diff part is only %d bytes: the cap should keep close to 50KB", len(diffPart))
	}
}

func TestReviewPRFallsBackWhenGitHubRefusesTheDiff(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	r := testkit.NewRepo(t, "main", "huge", nil, map[string]string{"a.go": "package a\n", "b/c.go": "package c\n\nvar X = 1\n"})
	gh.AddPR(repo, testkit.PR{Number: 5, Title: "Huge", HeadRef: r.Head, Remote: r.Remote, Diff: r.Diff(t), DiffStatus: 406})
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)

	res := env.Run(t, "review-pr", "5", "--context-only")

	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	for _, want := range []string{"diff --git a/a.go b/a.go", "+package a", "diff --git a/b/c.go b/b/c.go", "+var X = 1"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("rebuilt diff lacks %q:\n%s", want, res.Stdout)
		}
	}
	if gh.Count("files") != 1 {
		t.Errorf("want the files endpoint once after the 406, got %+v", gh.Requests())
	}
}

func TestReviewPRMissingPR(t *testing.T) {
	t.Parallel()
	_, env, _ := prFixture(t, nil)

	res := env.Run(t, "review-pr", "99", "--context-only")

	if res.Code != 1 {
		t.Errorf("exit %d, want 1", res.Code)
	}
	if res.Stdout != "" {
		t.Errorf("stdout must stay empty on failure, got:\n%s", res.Stdout)
	}
	if !strings.Contains(res.Stderr, "PR #99 not found in "+repo) {
		t.Errorf("stderr should say the PR was not found:\n%s", res.Stderr)
	}
}

func TestReviewPRNoPartialContextWhenTheDiffFails(t *testing.T) {
	t.Parallel()
	gh, env, _ := prFixture(t, map[string]string{"x.go": "package x\n"})
	gh.Fail(testkit.Fault{Kind: "diff", Status: 500, Times: 10})

	res := env.Run(t, "review-pr", "24", "--context-only")

	if res.Code != 1 || res.Stdout != "" {
		t.Fatalf("exit %d, stdout %q: want 1 and nothing printed", res.Code, res.Stdout)
	}
	if !strings.Contains(res.Stderr, "HTTP 500") || !strings.Contains(res.Stderr, "try again later") {
		t.Errorf("stderr should name the failure and what to do:\n%s", res.Stderr)
	}
	if n := gh.Count("diff"); n != 4 {
		t.Errorf("an idempotent read is tried 4 times in all, got %d", n)
	}
}

func TestReviewPRRetriesReads(t *testing.T) {
	t.Parallel()
	gh, env, _ := prFixture(t, map[string]string{"x.go": "package x\n"})
	gh.Fail(testkit.Fault{Kind: "graphql", Status: 502})
	gh.Fail(testkit.Fault{Kind: "diff", Status: 429, RetryAfter: "0"})

	res := env.Run(t, "review-pr", "24", "--context-only")

	if res.Code != 0 || !strings.Contains(res.Stdout, "## Task: Review PR #24") {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if gh.Count("graphql") != 2 || gh.Count("diff") != 2 {
		t.Errorf("want each read retried once, got %+v", gh.Requests())
	}
}

func TestReviewPRWithoutToken(t *testing.T) {
	t.Parallel()
	gh, env, _ := prFixture(t, nil)
	env.Set("GH_ENTERPRISE_TOKEN", "")

	res := env.Run(t, "review-pr", "24", "--context-only")

	if res.Code != 1 || !strings.Contains(res.Stderr, "gh auth login") {
		t.Errorf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	if gh.Count("") != 0 {
		t.Errorf("no request may be sent without a token, got %d", gh.Count(""))
	}
}

func TestReviewPRUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"review-pr"},
		{"review-pr", "--context-only"},
		{"review-pr", "#abc", "--context-only"},
		{"review-pr", "0", "--context-only"},
		{"review-pr", "24", "25", "--context-only"},
		{"review-pr", "24", "--context-only", "--bogus"},
		{"review-pr", "24"},
		{"review-pr", "24", "--context-only", "-R"},
		{"review-pr", "24", "--context-only", "-R", "not-a-repo"},
		{"frobnicate"},
		{"--bogus"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			gh, env, _ := prFixture(t, nil)
			res := env.Run(t, args...)
			if res.Code != 2 {
				t.Errorf("exit %d, want 2; stderr:\n%s", res.Code, res.Stderr)
			}
			if res.Stdout != "" {
				t.Errorf("usage errors go to stderr, stdout got %q", res.Stdout)
			}
			if !strings.Contains(res.Stderr, "Usage:") {
				t.Errorf("stderr should show the usage:\n%s", res.Stderr)
			}
			if n := gh.Count(""); n != 0 {
				t.Errorf("a usage error must send no request, sent %d", n)
			}
		})
	}
}

var reVersion = regexp.MustCompile(`^gh-ocdx (dev( \([0-9a-f]{1,12}(\+dirty)?\))?|v\d+\.\d+\.\d+\S*)\n$`)

// Help and the version, from the built binary: its version comes from how
// it was built.
func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "review-pr"},
		{[]string{}, "Usage: gh ocdx <command>"},
		{[]string{"help", "review-pr"}, "--context-only"},
		{[]string{"review-pr", "-h"}, "Usage: gh ocdx review-pr [<number> | <url> | <branch>]"},
		{[]string{"--version"}, ""},
		{[]string{"version"}, ""},
	} {
		res := env.RunBinary(t, tc.args...)
		if tc.want == "" { // dev, with the commit when go recorded it, or the version go stamped
			if res.Code != 0 || !reVersion.MatchString(res.Stdout) {
				t.Errorf("%v: exit %d, stdout %q", tc.args, res.Code, res.Stdout)
			}
			continue
		}
		if res.Code != 0 || !strings.Contains(res.Stdout, tc.want) {
			t.Errorf("%v: exit %d, stdout lacks %q:\n%s%s", tc.args, res.Code, tc.want, res.Stdout, res.Stderr)
		}
	}
}
