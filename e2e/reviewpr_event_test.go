package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/posts"
)

const approvalNote = "gh-ocdx posts model approvals as comments: pass --event approve or set allowApprove to let it approve"

// reReviewPRTag is the tag of a review review-pr posted.
var reReviewPRTag = regexp.MustCompile(`<!-- ocdx:run=\d{8}T\d{6}-[0-9a-f]{6} round=1 kind=review-pr -->`)

// shown is what a reader of a posted body sees: its lines without the
// hidden ones (marker, tag, ledger).
func shown(body string) string {
	var keep []string
	for _, l := range strings.Split(body, "\n") {
		if t := strings.TrimSpace(l); !(strings.HasPrefix(t, "<!--") && strings.HasSuffix(t, "-->")) {
			keep = append(keep, l)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// A model's approval must not satisfy a required review by itself: with
// --yes it is posted as a comment, unless the person allowed approvals
// (--event approve, or allowApprove in the configuration). How to allow
// them is the person's to read, on stderr; the PR gets the model's review
// alone.
func TestReviewPRYesPostsAModelApprovalAsAComment(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		args         []string
		allowApprove bool
		proposed     string
		want         string
		note         string // said on stderr; "" = nothing to say
	}{
		{name: "default", proposed: "APPROVE", want: "COMMENT", note: approvalNote},
		{name: "event approve", args: []string{"--event", "approve"}, proposed: "APPROVE", want: "APPROVE"},
		{name: "allowApprove", allowApprove: true, proposed: "APPROVE", want: "APPROVE"},
		{name: "event request-changes", args: []string{"--event", "request-changes"}, allowApprove: true, proposed: "APPROVE", want: "COMMENT", note: approvalNote},
		{name: "event comment", args: []string{"--event", "comment"}, proposed: "REQUEST_CHANGES", want: "COMMENT", note: "the model requested changes; gh-ocdx posts its review as a comment (--event comment)"},
		{name: "change request", proposed: "REQUEST_CHANGES", want: "REQUEST_CHANGES"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh, fm, env := modelFixture(t, "openai/gpt-rev")
			if tc.allowApprove {
				env.WriteConfig(t, `{"reviewerModels": ["openai/gpt-rev"], "commentsAnalyzerModel": "openai/gpt-mini",
  "prFixModel": "openai/gpt-fix", "allowApprove": true}`)
			}
			scriptReview(fm, "gpt-rev", tc.proposed, reviewBody)

			res := env.Run(t, append([]string{"review-pr", "24", "--yes"}, tc.args...)...)

			wantCode(t, res, 0)
			got := gh.Reviews(repo, 24)
			if len(got) != 1 || got[0].Event != tc.want {
				t.Fatalf("posted %+v, want one %s review", got, tc.want)
			}
			for _, private := range []string{"gh-ocdx posts", "allowApprove", "--event"} {
				if strings.Contains(got[0].Body, private) {
					t.Errorf("the posted review carries a note for the person (%q):\n%s", private, got[0].Body)
				}
			}
			if tc.note == "" && strings.Contains(res.Stderr, "gh-ocdx posts") || tc.note != "" && strings.Count(res.Stderr, tc.note) != 1 {
				t.Errorf("stderr should say %q once:\n%s", tc.note, res.Stderr)
			}
			if !strings.Contains(got[0].Body, "**Verdict:** changes needed.") {
				t.Errorf("the model's review must be posted:\n%s", got[0].Body)
			}
		})
	}
}

func TestReviewPRBadEventIsAUsageError(t *testing.T) {
	t.Parallel()
	gh, fm, env := modelFixture(t, "openai/gpt-rev")
	res := env.Run(t, "review-pr", "24", "--yes", "--event", "lgtm")
	if res.Code != 2 || !strings.Contains(res.Stderr, `invalid --event "lgtm": use comment, request-changes or approve`) {
		t.Errorf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	if gh.Count("") != 0 || len(fm.Requests("gpt-rev")) != 0 {
		t.Error("no request may be sent before the flags are settled")
	}
}

// A change request posted by review-pr is gh-ocdx's own: it carries the
// marker and a tag, and review-loop does not take it for a maintainer's
// change request (it used to stop the loop with exit 3 until dismissed).
func TestReviewPRChangeRequestDoesNotBlockTheLoop(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil) // review-pr's model is the first reviewer, openai/rev-a
	args := `{"event":"REQUEST_CHANGES","body":"**Verdict:** please bound the cache."}`
	lf.fm.Script("rev-a", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: args}))

	res := lf.env.Run(t, "review-pr", "31", "--yes", "--event", "request-changes")

	wantCode(t, res, 0)
	posted := lf.gh.Reviews(repo, loopPR)
	if len(posted) != 1 || posted[0].Event != "REQUEST_CHANGES" {
		t.Fatalf("posted %+v", posted)
	}
	if !strings.HasPrefix(posted[0].Body, posts.Marker+"\n") || !reReviewPRTag.MatchString(posted[0].Body) {
		t.Errorf("the review must carry the marker and a review-pr tag:\n%s", posted[0].Body)
	}

	lf.approveRound()
	res = lf.run("--yes")

	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "converged")
	if strings.Contains(res.Stderr, "changes requested by") {
		t.Errorf("gh-ocdx's own review counted as a change request:\n%s", res.Stderr)
	}
}

// With --yes the model still reads only after asking: a fetch before any
// request_context is refused, and each request is confirmed and logged.
func TestReviewPRYesFetchesOnlyAfterARequest(t *testing.T) {
	t.Parallel()
	gh, fm, env := modelFixture(t, "openai/gpt-rev")
	fm.Script("gpt-rev",
		testkit.CallTools(testkit.FakeCall{Name: "read_file", Args: `{"path":"auth.go"}`}),
		testkit.CallTools(testkit.FakeCall{Name: "request_context", Args: `{"proposal":"read auth.go to see the redirect"}`}),
		testkit.CallTools(testkit.FakeCall{Name: "read_file", Args: `{"path":"auth.go"}`}),
		testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"COMMENT","body":"ok"}`}))

	res := env.Run(t, "review-pr", "24", "--yes")

	wantCode(t, res, 0)
	reqs := fm.Requests("gpt-rev")
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4", len(reqs))
	}
	if !strings.Contains(string(reqs[1].Body), "read_file fetches context, which needs the person's go-ahead: call request_context first") || fileRead(reqs, 1) {
		t.Errorf("a read before any request must be refused:\n%s", reqs[1].Body)
	}
	if !fileRead(reqs, 3) {
		t.Error("after the confirmed request the file must reach the model")
	}
	wantContains(t, "stderr", res.Stderr, "fetching as the reviewer asked (--yes): read auth.go to see the redirect")
	if len(gh.Reviews(repo, 24)) != 1 {
		t.Error("the review must be posted")
	}
}

// fileRead tells whether request i carries auth.go's content as a tool
// result: more often than the task message (whose diff shows it) does.
func fileRead(reqs []testkit.ModelRequest, i int) bool {
	const content = "func Redirect()"
	return strings.Count(string(reqs[i].Body), content) > strings.Count(string(reqs[0].Body), content)
}
