//go:build unix

package e2e

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// On a terminal each answer is shown before it is posted: skipped, it is
// not posted and a later run offers it again; edited, the person's words
// are posted, with gh-ocdx's tags.
func TestReplyShowsEachAnswerSkipThenEdit(t *testing.T) {
	t.Parallel()
	lf, threadID := newReplyLoop(t, "Why is this a problem?")
	lf.fm.Script("talker", replyEnvelope("explain", "Nothing bounds the map.", "cache.go:3 var Size = 10"),
		replyEnvelope("explain", "Nothing bounds the map.", "cache.go:3 var Size = 10"))
	editorScript(t, lf.env, `printf 'Edited: the bound is never checked.\n' > "$1"`)

	term := lf.env.StartTerminal(t, "reply", "31")
	term.Expect("@mona: Why is this a problem?")
	term.Expect("Nothing bounds the map.")
	term.Expect("Post this answer?")
	term.Send(testkit.Down + testkit.Down + testkit.Enter) // Skip
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if n := len(lf.thread(threadID).Comments); n != 2 {
		t.Fatalf("a skipped answer was posted: %d comments", n)
	}

	term = lf.env.StartTerminal(t, "reply", "31")
	term.Expect("Post this answer?")
	term.Send(testkit.Down + testkit.Enter) // Edit
	term.Expect("Edit the answer")
	term.Send(testkit.Enter)
	term.Expect("Edited: the bound is never checked.")
	term.Expect("Post this answer?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	th := lf.thread(threadID)
	if len(th.Comments) != 3 {
		t.Fatalf("want one answer, got %d comments", len(th.Comments))
	}
	body := th.Comments[2].Body
	wantContains(t, "the answer", body, "@mona Edited: the bound is never checked.", "<!-- ocdx:answered=")
	if strings.Contains(body, "Nothing bounds the map.") {
		t.Errorf("the model's words were posted, not the edit:\n%s", body)
	}
}

// More threads waiting than one run answers: on a terminal gh-ocdx asks
// before spending anything; cancelled, no model is called.
func TestReplyAsksBeforeAnsweringMoreThanMaxReplies(t *testing.T) {
	t.Parallel()
	lf, _ := newReplyLoop(t, "Why?")
	lf.ownThread(getTest, "P2", "Is it?")

	term := lf.env.StartTerminal(t, "reply", "31", "--max-replies", "1")
	term.Expect("2 threads of gh-ocdx's have replies waiting for an answer")
	term.Send(testkit.Down + testkit.Down + testkit.Enter) // Cancel
	if code := term.Wait(); code != 130 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if n := len(lf.fm.Requests("talker")); n != 0 {
		t.Errorf("%d model calls before the person decided", n)
	}
}
