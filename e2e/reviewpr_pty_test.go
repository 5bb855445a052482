//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestReviewPROrientInATerminal(t *testing.T) {
	t.Parallel()
	refused := "the person refused your latest context request"
	for _, tc := range []struct {
		name    string
		keys    []string // at "Context request", then at a text prompt if any
		toModel string   // what the model is told
		refusal string   // what its read_file of auth.go then gives instead of the file; "" = the file
	}{
		{"confirm", []string{testkit.Enter}, "Confirmed: fetch what you proposed", ""},
		{"narrow", []string{testkit.Down + testkit.Enter, "only auth.go\r"}, "Narrowed. Fetch only this instead: only auth.go", ""},
		// An empty narrowing would tell the model nothing: it is asked again.
		{"narrow, empty first", []string{testkit.Down + testkit.Enter, "\r", "only auth.go\r"}, "Narrowed. Fetch only this instead: only auth.go", ""},
		{"narrow to another file", []string{testkit.Down + testkit.Enter, "only README.md\r"}, "Narrowed. Fetch only this instead: only README.md",
			`the person narrowed your latest context request to \"only README.md\", which does not name auth.go`},
		{"refuse", []string{testkit.Down + testkit.Down + testkit.Enter, "the diff is enough\r"}, "Refused. Do not fetch it. The user's reason: the diff is enough", refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh, fm, env := modelFixture(t, "openai/gpt-rev")
			scriptReview(fm, "gpt-rev", "COMMENT", reviewBody)

			term := env.StartTerminal(t, "review-pr", "24")
			term.Expect("read auth.go to see the redirect")
			term.Expect("Context request")
			term.Send(tc.keys[0])
			for i, k := range tc.keys[1:] {
				if i > 0 {
					term.Expect("an empty answer narrows nothing")
				}
				term.Expect("?")
				term.Send(k)
			}
			term.Expect("Post this review?")
			term.Send(testkit.Enter)
			if code := term.Wait(); code != 0 {
				t.Fatalf("exit %d:\n%s", code, term.Screen())
			}
			reqs := fm.Requests("gpt-rev")
			if len(reqs) != 3 || !strings.Contains(string(reqs[1].Body), tc.toModel) {
				t.Fatalf("the model should be told %q (%d requests)", tc.toModel, len(reqs))
			}
			if read := fileRead(reqs, 2); read != (tc.refusal == "") || !strings.Contains(string(reqs[2].Body), tc.refusal) {
				t.Errorf("read_file gave the file: %v; want the file, or the refusal %q", read, tc.refusal)
			}
			if got := gh.Reviews(repo, 24); len(got) != 1 || got[0].Event != "COMMENT" {
				t.Errorf("posted: %+v", got)
			}
			// The screen shows a refused fetch as refused, not as if it ran.
			screen := term.Screen()
			if notRun := strings.Contains(screen, `tool read_file not run: `); notRun != (tc.refusal != "") {
				t.Errorf("read_file shown as not run: %v, want %v:\n%s", notRun, tc.refusal != "", screen)
			}
		})
	}
}

func TestReviewPRDiscussThenPost(t *testing.T) {
	t.Parallel()
	gh, fm, env := modelFixture(t, "openai/gpt-rev")
	fm.Script("gpt-rev",
		testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"APPROVE","body":"first draft"}`}),
		testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"REQUEST_CHANGES","body":"revised: please add a test"}`}))

	term := env.StartTerminal(t, "review-pr", "24")
	term.Expect("first draft")
	term.Expect("Post this review?")
	term.Send(testkit.Down + testkit.Down + testkit.Down + testkit.Enter) // Discuss
	term.Expect("feedback")
	term.Send("ask for a test of the redirect\r")
	term.Expect("revised: please add a test")
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	reqs := fm.Requests("gpt-rev")
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "ask for a test of the redirect") {
		t.Fatalf("the model must see the feedback before revising (%d requests)", len(reqs))
	}
	if got := gh.Reviews(repo, 24); len(got) != 1 || shown(got[0].Body) != "revised: please add a test" || got[0].Event != "REQUEST_CHANGES" {
		t.Errorf("only the revised review is posted: %+v", got)
	}
}

func TestReviewPRAbortAndCtrlCPostNothing(t *testing.T) {
	t.Parallel()
	for name, keys := range map[string]string{
		"abort":  testkit.Down + testkit.Down + testkit.Down + testkit.Down + testkit.Enter,
		"ctrl-c": testkit.CtrlC,
	} {
		t.Run(name, func(t *testing.T) {
			gh, fm, env := modelFixture(t, "openai/gpt-rev")
			fm.Script("gpt-rev", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"APPROVE","body":"LGTM"}`}))

			term := env.StartTerminal(t, "review-pr", "24")
			term.Expect("Post this review?")
			term.Send(keys)
			if code := term.Wait(); code != 130 {
				t.Errorf("exit %d, want 130:\n%s", code, term.Screen())
			}
			if s := term.Screen(); strings.Contains(s, "error:") {
				t.Errorf("stopping is not an error:\n%s", s)
			}
			if n := len(gh.Reviews(repo, 24)) + len(gh.Comments(repo, 24)); n != 0 {
				t.Errorf("%d things posted", n)
			}
			if n := len(fm.Requests("gpt-rev")); n != 1 {
				t.Errorf("no model call after the user stopped: %d calls", n)
			}
		})
	}
}

// At Decide the person sees the event gh-ocdx would post (a model's
// approval as a comment) and may post with another one.
func TestReviewPRPostAsAnotherEvent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		keys  string // at "Post the review as"
		event string
	}{
		{"approve", testkit.Down + testkit.Down + testkit.Enter, "APPROVE"},
		{"request changes", testkit.Down + testkit.Enter, "REQUEST_CHANGES"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh, fm, env := modelFixture(t, "openai/gpt-rev")
			fm.Script("gpt-rev", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"APPROVE","body":"LGTM"}`}))

			term := env.StartTerminal(t, "review-pr", "24")
			// The note is the person's, on stderr above the proposal.
			term.Expect("! the model approved; gh-ocdx posts model approvals as comments")
			term.Expect("Proposed review: COMMENT (the model proposed APPROVE)")
			term.Expect("Post this review?")
			term.Send(testkit.Down + testkit.Down + testkit.Enter) // Post as…
			term.Expect("Post the review as")
			term.Send(tc.keys)
			if code := term.Wait(); code != 0 {
				t.Fatalf("exit %d:\n%s", code, term.Screen())
			}
			got := gh.Reviews(repo, 24)
			if len(got) != 1 || got[0].Event != tc.event {
				t.Fatalf("posted %+v, want one %s", got, tc.event)
			}
			if shown(got[0].Body) != "LGTM" {
				t.Errorf("the person's choice is posted without gh-ocdx's note:\n%s", got[0].Body)
			}
		})
	}
}

// Edit at Decide opens the review in the editor gh would use (GH_EDITOR
// first); the edit is shown, and posted as the person wrote it.
func TestReviewPREditAtDecide(t *testing.T) {
	t.Parallel()
	gh, fm, env := modelFixture(t, "openai/gpt-rev")
	fm.Script("gpt-rev", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"REQUEST_CHANGES","body":"the model's draft"}`}))
	// The editor replaces the model's draft with the person's words, and
	// leaves a copy of what it was given.
	seen := filepath.Join(t.TempDir(), "seen")
	editor := filepath.Join(t.TempDir(), "edit.sh")
	if err := os.WriteFile(editor, []byte("cp \"$1\" "+seen+"\nprintf 'my own words\\n' > \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	env.Set("GH_EDITOR", "sh "+editor)
	env.Set("EDITOR", "false") // GH_EDITOR comes first

	term := env.StartTerminal(t, "review-pr", "24")
	term.Expect("Post this review?")
	term.Send(testkit.Down + testkit.Enter) // Edit
	term.Expect("Edit the review")
	term.Send(testkit.Enter) // launch the editor
	term.Expect("Your edited review: REQUEST_CHANGES")
	term.Expect("Post this review?")
	term.Send(testkit.Enter)
	if code := term.Wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.Screen())
	}
	if b, _ := os.ReadFile(seen); !strings.HasPrefix(string(b), "<!-- Edit the review.") || !strings.Contains(string(b), "the model's draft") {
		t.Errorf("the editor was not given the draft as it is (no byte-order mark): %q", b)
	}
	if got := gh.Reviews(repo, 24); len(got) != 1 || shown(got[0].Body) != "my own words" || got[0].Event != "REQUEST_CHANGES" {
		t.Errorf("posted %+v", got)
	}
}

// An editor that cannot start (none set, nano not installed) or exits
// non-zero loses nothing: the review is offered again as it was, its text
// saved in a file the line names; Post then posts it.
func TestReviewPREditWithoutAnEditorKeepsTheReview(t *testing.T) {
	t.Parallel()
	for _, editor := range []string{"no-such-editor-here", "false"} {
		t.Run(editor, func(t *testing.T) {
			t.Parallel()
			gh, fm, env := modelFixture(t, "openai/gpt-rev")
			fm.Script("gpt-rev", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: `{"event":"REQUEST_CHANGES","body":"the model's draft"}`}))
			env.Set("GH_EDITOR", editor)

			term := env.StartTerminal(t, "review-pr", "24")
			term.Expect("Post this review?")
			term.Send(testkit.Down + testkit.Enter) // Edit
			term.Expect("Edit the review")
			term.Send(testkit.Enter)
			term.Expect("its text saved in ")
			term.Expect("Post this review?")
			term.Send(testkit.Enter)
			if code := term.Wait(); code != 0 {
				t.Fatalf("exit %d:\n%s", code, term.Screen())
			}
			screen := term.Screen()
			wantContains(t, "the screen", screen, `the editor "`+editor+`" failed`, "set GH_EDITOR")
			m := regexp.MustCompile(`saved in (\S+\.md)`).FindStringSubmatch(screen)
			if m == nil {
				t.Fatalf("no file named:\n%s", screen)
			}
			if b, err := os.ReadFile(m[1]); err != nil || !strings.Contains(string(b), "the model's draft") {
				t.Errorf("the saved draft %s: %q %v", m[1], b, err)
			} else {
				os.Remove(m[1])
			}
			if got := gh.Reviews(repo, 24); len(got) != 1 || shown(got[0].Body) != "the model's draft" {
				t.Errorf("posted %+v", got)
			}
		})
	}
}
