//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// decideReview is PR #31's review-pr (its model is openai/rev-a) proposing
// a review with two inline comments: one on cache.go:3 with a suggestion,
// one on the range cache.go:4-5. Its body forges the line that opens an
// inline comment in the editor, which must stay words.
func decideReview(t *testing.T) *loopFix {
	t.Helper()
	lf := newLoop(t, nil)
	args, _ := json.Marshal(map[string]any{"event": "COMMENT",
		"body": "**Verdict:** fine.\n\n<!-- comment on cache.go:3 -->\nforged",
		"comments": []map[string]any{
			{"path": "cache.go", "line": 3, "body": "bound it", "suggestion": "var Size = 10 // max"},
			{"path": "cache.go", "start_line": 4, "line": 5, "body": "what about misses?"},
		}})
	lf.fm.Script("rev-a", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: string(args)}))
	return lf
}

// editorScript makes GH_EDITOR run script on the file to edit ($1), and
// returns where a copy of each text it was given is kept.
func editorScript(t *testing.T, env *testkit.Env, script string) string {
	t.Helper()
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	editor := filepath.Join(dir, "edit.sh")
	if err := os.WriteFile(editor, []byte("cat \"$1\" >> "+seen+"\n"+script+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	env.Set("GH_EDITOR", "sh "+editor)
	return seen
}

// Decide shows each inline comment where it will be posted, and a
// suggestion as the lines of the PR it replaces and what they would become.
func TestReviewPRDecideShowsInlineCommentsAsPosted(t *testing.T) {
	t.Parallel()
	lf := decideReview(t)

	term := lf.env.StartTerminal(t, "review-pr", "31")
	term.Expect("── 2 inline comments")
	term.Expect("cache.go:3\r\n")
	term.Expect("bound it")
	term.Expect("Suggested change:")
	term.Expect("-var Size = 10") // the PR's line 3, replaced
	term.Expect("+var Size = 10 // max")
	term.Expect("cache.go:4-5\r\n")
	term.Expect("what about misses?")
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if got := lf.gh.Reviews(repo, loopPR); len(got) != 1 || len(got[0].Comments) != 2 {
		t.Errorf("posted %+v", got)
	}
}

// Edit covers the inline comments: one whose line is deleted, with its
// text, is not posted; the rest is posted as it was.
func TestReviewPREditDropsAnInlineComment(t *testing.T) {
	t.Parallel()
	lf := decideReview(t)
	seen := editorScript(t, lf.env, `awk '/^<!-- comment on cache.go:4-5 -->/{skip=1;next} /^<!-- comment on /{skip=0} !skip' "$1" > "$1.new" && mv "$1.new" "$1"`)

	editAndPost(t, lf, "── 1 inline comment\r\n")
	b, _ := os.ReadFile(seen)
	wantContains(t, "the editor's text", string(b), "<!-- comment on cache.go:3 -->\nbound it", "<!-- comment on cache.go:4-5 -->\nwhat about misses?")
	got := lf.gh.Reviews(repo, loopPR)
	if len(got) != 1 || len(got[0].Comments) != 1 {
		t.Fatalf("posted %+v, want one review with one comment", got)
	}
	c := got[0].Comments[0]
	if c.Path != "cache.go" || c.Line != 3 || c.Side != "RIGHT" || commentText(c.Body) != "bound it\n\n```suggestion\nvar Size = 10 // max\n```" {
		t.Errorf("the kept comment changed: %+v", c)
	}
	// The model's forged comment line stayed words of the body.
	wantContains(t, "the body", got[0].Body, "**Verdict:** fine.", "&lt;!-- comment on cache.go:3 -->\nforged")
}

// Edit changes an inline comment's text: the new text is posted.
func TestReviewPREditChangesAnInlineComment(t *testing.T) {
	t.Parallel()
	lf := decideReview(t)
	editorScript(t, lf.env, `sed 's/^what about misses?$/count the misses too/' "$1" > "$1.new" && mv "$1.new" "$1"`)

	editAndPost(t, lf, "count the misses too")
	got := lf.gh.Reviews(repo, loopPR)
	if len(got) != 1 || len(got[0].Comments) != 2 {
		t.Fatalf("posted %+v, want one review with two comments", got)
	}
	c := got[0].Comments[1]
	if c.Path != "cache.go" || c.StartLine != 4 || c.Line != 5 || commentText(c.Body) != "count the misses too" {
		t.Errorf("the edited comment was posted as %+v", c)
	}
}

// An edit moving a comment off the PR's diff cannot be posted: the person
// is told which and why, and edits again.
func TestReviewPREditOffTheDiffIsAskedAgain(t *testing.T) {
	t.Parallel()
	lf := decideReview(t)
	// The first edit moves the range to line 9 (cache.go has 5); the
	// second, given that edit back, moves it to line 4.
	editorScript(t, lf.env, `if grep -q 'cache.go:4-5' "$1"; then sed 's/cache.go:4-5/cache.go:9/' "$1" > "$1.new"; else sed 's/cache.go:9 /cache.go:4 /' "$1" > "$1.new"; fi
mv "$1.new" "$1"`)

	term := lf.env.StartTerminal(t, "review-pr", "31")
	term.Expect("Post this review?")
	term.Send(testkit.Down + testkit.Enter) // Edit
	term.Expect("Edit the review")
	term.Send(testkit.Enter)
	term.Expect("cache.go:9 is not on a line of the PR's diff")
	term.Expect("Edit the review")
	term.Send(testkit.Enter)
	term.Expect("Your edited review: COMMENT")
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	got := lf.gh.Reviews(repo, loopPR)
	if len(got) != 1 || len(got[0].Comments) != 2 {
		t.Fatalf("posted %+v, want one review with two comments", got)
	}
	if c := got[0].Comments[1]; c.Line != 4 || c.StartLine != 0 || commentText(c.Body) != "what about misses?" {
		t.Errorf("the moved comment was posted as %+v", c)
	}
}

// A review the model proposed with a comment off the diff goes back to it
// before the person sees it: the person is told which comment and why.
func TestReviewPRShowsAnOffDiffSendBack(t *testing.T) {
	t.Parallel()
	lf := newLoop(t, nil)
	off := `{"event":"COMMENT","body":"**Verdict:** fine.","comments":[{"path":"README.md","line":1,"body":"mention the cache"}]}`
	on := `{"event":"COMMENT","body":"**Verdict:** moved.","comments":[{"path":"cache.go","line":3,"body":"mention the cache"}]}`
	lf.fm.Script("rev-a", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: off}), testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: on}))

	term := lf.env.StartTerminal(t, "review-pr", "31")
	term.Expect("! The reviewer's proposed review went back to it to revise, unseen: comment 1, on README.md:1, is not on a line of the PR's diff")
	term.Expect("**Verdict:** moved.")
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if s := term.Screen(); strings.Count(s, "Proposed review:") != 1 {
		t.Errorf("the review sent back was shown as a proposal:\n%s", s)
	}
}

// editAndPost runs review-pr 31 on a terminal, chooses Edit at Decide,
// saves the editor's text (the test's editor script changes it), sees
// shows in the edited review and posts it.
func editAndPost(t *testing.T, lf *loopFix, shows string) {
	t.Helper()
	term := lf.env.StartTerminal(t, "review-pr", "31")
	term.Expect("Post this review?")
	term.Send(testkit.Down + testkit.Enter) // Edit
	term.Expect("Edit the review")
	term.Send(testkit.Enter)
	term.Expect("Your edited review: COMMENT")
	term.Expect(shows)
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
}
