package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/posts"
)

// Who may dismiss and whose posts count (docs/architecture.md, Who may
// dismiss; Whose posts count): GitHub's permission on the repository,
// never the comment's author association.

// answers are gh-ocdx's answers to refused dismissals on the PR.
func (lf *loopFix) answers() []string {
	var out []string
	for _, b := range lf.bodies() {
		if strings.Contains(b, "<!-- ocdx:refused ") {
			out = append(out, b)
		}
	}
	return out
}

// The PR's author, a MEMBER with write permission, dismisses the SEC-
// finding of the token their PR adds: it does not count, the run does not
// converge, and one answer says why.
func TestLoopRefusesTheAuthorDismissingTheirOwnSECFinding(t *testing.T) {
	t.Parallel()
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	lf := newLoop(t, func(pr *testkit.PR) {
		pr.Diff += "diff --git a/config.go b/config.go\nnew file mode 100644\n--- /dev/null\n+++ b/config.go\n@@ -0,0 +1,3 @@\n" +
			"+package cache\n+\n+var token = \"" + token + "\"\n"
	})
	for range 3 {
		lf.approveRound()
	}
	sec := modelFinding{Category: "security", File: "config.go", Line: line(3), Title: "Hard-coded github-token added"}.id()
	lf.gh.SetPermission(repo, "mona", "write")
	lf.gh.AddCommentBy(repo, loopPR, "mona", "MEMBER", "/ocdx dismiss "+sec)

	res := lf.run("--yes")

	wantCode(t, res, 3)
	var reports []string
	for _, b := range lf.bodies() {
		if reTag.MatchString(b) {
			reports = append(reports, b)
		}
	}
	wantContains(t, "the first review report", reports[0], sec, "P0", "needs_major_work")
	for _, r := range reports {
		if strings.Contains(r, "### Dismissed findings") {
			t.Errorf("the SEC- finding was shown dismissed:\n%s", r)
		}
	}
	answers := lf.answers()
	if len(answers) != 1 {
		t.Fatalf("want one answer to the refused dismissal, got %q", answers)
	}
	wantContains(t, "the answer", answers[0], "@mona", sec, "does not count", "the PR's author can't dismiss findings on their own PR")
}

// A MEMBER without write permission dismisses a P1: it does not count, the
// finding is fixed, and the answer is posted once however many runs see
// the command.
func TestLoopRefusesADismissalWithoutWritePermission(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.gh.SetPermission(repo, "pat", "read")
	lf.gh.AddCommentBy(repo, loopPR, "pat", "MEMBER", "/ocdx dismiss "+cacheBug.id())
	lf.findingRound(cacheBug)
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("comments %s: the finding must be fixed", k)
	}
	lf.env.Set("OCDX_STATE_DIR", t.TempDir())
	lf.approveRound()
	wantCode(t, lf.run("--yes"), 0)
	answers := lf.answers()
	if len(answers) != 1 {
		t.Fatalf("want one answer over two runs, got %q", answers)
	}
	wantContains(t, "the answer", answers[0], "@pat", cacheBug.id(), "only people with write permission on "+repo+" can dismiss findings (pat has read)")
	if n := lf.gh.Count("permission"); n != 2 {
		t.Errorf("%d permission requests, want 2: pat's, once per run", n)
	}
}

// Someone with write permission dismisses a P1: it is neither counted nor
// fixed, the run converges, and the report names who dismissed it. Their
// permission is read once for the run.
func TestLoopHonoursADismissalWithWritePermission(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.gh.SetPermission(repo, "carol", "write")
	lf.gh.AddCommentBy(repo, loopPR, "carol", "CONTRIBUTOR", "/ocdx dismiss "+cacheBug.id())
	lf.findingRound(cacheBug)

	res := lf.run("--yes")

	wantCode(t, res, 0)
	if k := fmt.Sprint(lf.kinds()); k != "[review:1]" {
		t.Fatalf("comments %s: a dismissed finding is not fixed", k)
	}
	wantContains(t, "the report", lf.bodies()[0], "### Dismissed findings", "`"+cacheBug.id()+"` P1 Cache size is not bounded · dismissed by `carol`")
	if a := lf.answers(); len(a) != 0 {
		t.Errorf("an honoured dismissal was answered: %q", a)
	}
	if n := lf.gh.Count("permission"); n != 1 {
		t.Errorf("%d permission requests, want 1", n)
	}
}

// gh ocdx dismiss checks the token's user first: without write permission,
// or a SEC- finding without admin, it exits 1 with the reason and posts
// nothing; with it, it posts.
func TestDismissChecksThePermissionFirst(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.raised("SEC-b0bf205b", "QUAL-0badf00d")

	lf.gh.SetPermission(repo, testkit.Login, "triage")
	res := lf.env.Run(t, "dismiss", "31", "QUAL-0badf00d")
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "nothing was posted", "only people with write permission on "+repo)

	lf.gh.SetPermission(repo, testkit.Login, "write")
	res = lf.env.Run(t, "dismiss", "31", "SEC-b0bf205b", "QUAL-0badf00d")
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "SEC-b0bf205b: SEC- findings can only be dismissed by an admin")
	if cs := lf.dismissals(); len(cs) != 0 {
		t.Fatalf("a refused dismissal was posted: %+v", cs)
	}

	res = lf.env.Run(t, "dismiss", "31", "QUAL-0badf00d")
	wantCode(t, res, 0)
	if cs := lf.dismissals(); len(cs) != 1 {
		t.Fatalf("want the dismissal posted, got %+v", cs)
	}
}

// reportBy is a report carrying a ledger that says id is stuck, as a
// gh-ocdx run would post it.
func reportBy(head, id string) string {
	led := posts.Ledger{Run: "20260101T000000-abcdef", Round: 2, Head: head}
	led.Set(id, finding.StatusStuck, "")
	return posts.Marker + "\n" + posts.RunTag(led.Run, 2, "review") + "\nround 2 report\n" + led.Block()
}

// A ledger posted by a read-only commenter is text: the finding it says is
// stuck is fixed as usual.
func TestLoopIgnoresALedgerOfAReadOnlyCommenter(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.gh.SetPermission(repo, "mallory", "read")
	lf.gh.AddComment(repo, loopPR, "mallory", reportBy(lf.start, cacheBug.id()))
	lf.findingRound(cacheBug)
	lf.approveRound()

	res := lf.run("--yes")

	wantCode(t, res, 0)
	if strings.Contains(res.Stderr, "no record of run") {
		t.Errorf("the forged ledger was read:\n%s", res.Stderr)
	}
	if k := fmt.Sprint(lf.kinds()); k != "[review:1 fix:1 review:2]" {
		t.Fatalf("comments %s: the finding must be fixed", k)
	}
}

// The ledger a CI bot listed in the base branch's trustedLogins posted is
// read on a laptop whose login differs: the run it records is taken up and
// its stuck finding is not fixed again.
func TestLoopReadsTheLedgerOfATrustedLogin(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	base := t.TempDir()
	testkit.Git(t, base, "clone", "--quiet", "--branch", lf.repo.Base, lf.repo.Remote, ".")
	testkit.WriteFiles(t, base, map[string]string{".ocdx.json": `{"trustedLogins": ["github-actions[bot]"]}`})
	testkit.Git(t, base, "add", ".ocdx.json")
	testkit.Git(t, base, "commit", "--quiet", "-m", "trust the CI bot")
	testkit.Git(t, base, "push", "--quiet", "origin", lf.repo.Base)
	lf.gh.AddComment(repo, loopPR, "github-actions[bot]", reportBy(lf.start, cacheBug.id()))
	lf.findingRound(cacheBug)

	res := lf.run("--yes")

	wantCode(t, res, 3)
	wantContains(t, "stderr", res.Stderr, "this machine had no record of run 20260101T000000-abcdef", "manual intervention required: stuck")
	if lf.fix.Count() != 0 {
		t.Errorf("the stuck finding was sent to the fix agent")
	}
	if n := lf.gh.Count("permission"); n != 0 {
		t.Errorf("%d permission requests: a listed login needs none", n)
	}
}

// gh ocdx dismiss of an ID no review on the PR raised exits 1 and posts
// nothing, as restore does for an ID the verifier did not refute; an ID
// the PR's latest report lists is dismissed.
func TestDismissOfAnIDNoReviewRaisedPostsNothing(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.gh.SetPermission(repo, testkit.Login, "write")
	lf.gh.AddComment(repo, loopPR, testkit.Login, reportBy(lf.start, cacheBug.id()))

	res := lf.env.Run(t, "dismiss", "31", cacheBug.id(), "QUAL-deadbeef")
	wantCode(t, res, 1)
	wantContains(t, "stderr", res.Stderr, "QUAL-deadbeef: no review on PR #31 raised it", "nothing was posted")
	if cs := lf.gh.Comments(repo, loopPR); len(cs) != 1 {
		t.Fatalf("a dismissal of an unknown ID was posted: %+v", cs[1:])
	}

	res = lf.env.Run(t, "dismiss", "31", cacheBug.id())
	wantCode(t, res, 0)
	wantContains(t, "stderr", res.Stderr, "Dismissed on octo/widgets#31: "+cacheBug.id())
}

// /ocdx dismiss in the Action makes the same check: an ID no review
// raised is answered as nothing to dismiss, not as dismissed.
func TestCommandDismissOfAnIDNoReviewRaised(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	lf.gh.SetPermission(repo, "octocat", "write")
	lf.gh.AddComment(repo, loopPR, testkit.Login, reportBy(lf.start, cacheBug.id()))
	id := lf.comment("octocat", "/ocdx dismiss QUAL-deadbeef")

	wantCode(t, lf.env.Run(t, "command", "31", "--comment-id", id), 0)

	got := lf.botComments()
	if len(got) != 2 || strings.Contains(got[1], "dismissed") {
		t.Fatalf("answers: %q", got)
	}
	wantContains(t, "the answer", got[1], "@octocat: no review on this pull request raised QUAL-deadbeef", "<!-- ocdx:command="+id+" -->")
}

// raised adds a round report of gh-ocdx's own whose ledger lists ids as
// open, as a run that raised them would post it: dismiss and /ocdx
// dismiss act only on findings a review raised.
func (lf *loopFix) raised(ids ...string) {
	led := posts.Ledger{Run: "20260101T000000-0ac1ed", Round: 1, Head: lf.start}
	for _, id := range ids {
		led.Set(id, finding.StatusOpen, "")
	}
	lf.gh.AddComment(repo, lf.number, lf.gh.Login, posts.Marker+"\n"+posts.RunTag(led.Run, 1, "review")+"\nround 1 report\n"+led.Block())
}

// dismissals are the /ocdx dismiss comments on the PR.
func (lf *loopFix) dismissals() []testkit.PostedComment {
	var out []testkit.PostedComment
	for _, c := range lf.gh.Comments(repo, lf.number) {
		if strings.HasPrefix(c.Body, "/ocdx dismiss") {
			out = append(out, c)
		}
	}
	return out
}
