package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/posts"
)

// Verbs compose through the PR (docs/architecture.md, review-pr; The
// ledger): what one verb posted or pushed is known to the next, on the
// machine that ran it and on a fresh one (an empty state directory).

// commentText is a review-pr inline comment's text after gh-ocdx's header
// (the marker and its finding's tag), which every one begins with; the
// body unchanged when it lacks the header.
func commentText(body string) string {
	rest, ok := strings.CutPrefix(body, posts.Marker+"\n<!-- ocdx:finding=")
	if !ok {
		return body
	}
	_, text, _ := strings.Cut(rest, "-->\n")
	return text
}

// pushLater pushes a commit adding the file name on top of the PR's head,
// as its author would.
func (lf *loopFix) pushLater(name string) {
	testkit.WriteFiles(lf.t, lf.repo.Clone, map[string]string{name: "package cache // pushed after the review\n"})
	testkit.Git(lf.t, lf.repo.Clone, "add", name)
	testkit.Git(lf.t, lf.repo.Clone, "commit", "-qm", "later: "+name)
	testkit.Git(lf.t, lf.repo.Clone, "push", "-q", "origin", lf.repo.Head)
}

// review-pr's inline comments are gh-ocdx's own threads, not a person's:
// review-loop after review-pr converges when its reviewers raise nothing
// new, reviewing what changed since review-pr's head with review-pr's
// comments as the previous findings to judge.
func TestReviewPRThenLoopConverges(t *testing.T) {
	t.Parallel()
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("fresh state %t", fresh), func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, nil) // review-pr's model is the first reviewer, openai/rev-a
			review := `{"event":"REQUEST_CHANGES","body":"**Verdict:** bound the cache.","comments":[{"path":"cache.go","line":3,"body":"Bound the cache\n\nIt grows without limit."}]}`
			lf.fm.Script("rev-a", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: review}))
			wantCode(t, lf.env.Run(t, "review-pr", "31", "--yes"), 0)
			posted := lf.gh.Reviews(repo, loopPR)
			if len(posted) != 1 || len(posted[0].Comments) != 1 {
				t.Fatalf("review-pr posted %+v", posted)
			}
			wantContains(t, "review-pr's inline comment", posted[0].Comments[0].Body, posts.Marker, "<!-- ocdx:finding=", "Bound the cache")
			lf.pushLater("later.go")
			if fresh {
				lf.env.Set("OCDX_STATE_DIR", t.TempDir())
			}
			calls := len(lf.fm.Requests("rev-a"))
			lf.approveRound()

			res := lf.run("--yes")

			wantCode(t, res, 0)
			if strings.Contains(res.Stderr, "THREAD-") || strings.Contains(res.Stderr, "1 unresolved review thread") {
				t.Errorf("review-pr's comment was taken for a person's thread:\n%s", res.Stderr)
			}
			if !fresh && strings.Contains(res.Stderr, "had no record of") {
				t.Errorf("the machine that ran review-pr did not know its run:\n%s", res.Stderr)
			}
			reqs := lf.fm.Requests("rev-a")
			if len(reqs) <= calls {
				t.Fatal("no review")
			}
			task := string(reqs[calls].Body)
			wantContains(t, "the reviewer's task", task, "Diff since "+lf.start[:7], "pushed after the review", "**Previous findings**", "cache.go:3", "Bound the cache")
			if strings.Contains(task, "**Diff:**") {
				t.Error("review-loop reviewed the whole PR again after review-pr")
			}
			// review-loop posted no second thread for review-pr's comment.
			for _, r := range lf.gh.Reviews(repo, loopPR)[1:] {
				if len(r.Comments) != 0 {
					t.Errorf("review-loop commented inline again: %+v", r.Comments)
				}
			}
		})
	}
}

// A fix pushed by gh ocdx fix is fixed for review-loop: raised again, at
// the line the fix moved it to, the finding is stuck and never goes to the
// fix model a second time, as after a fix of the loop's own. The findings
// come from a review-only round (/ocdx review) or from a file.
func TestAFixByTheFixVerbCountsForTheLoop(t *testing.T) {
	t.Parallel()
	for _, from := range []string{"review", "file"} {
		for _, fresh := range []bool{false, true} {
			t.Run(fmt.Sprintf("findings from %s, fresh state %t", from, fresh), func(t *testing.T) {
				t.Parallel()
				lf := newLoop(t, nil)
				args := []string{"fix", "31", "--yes"}
				if from == "review" {
					lf.gh.SetPermission(repo, "lead", "write")
					lf.findingRound(cacheBug)
					wantCode(t, lf.env.Run(t, "command", "31", "--comment-id", lf.comment("lead", "/ocdx review")), 3)
				} else {
					bug := finding.Finding{ID: cacheBug.id(), Priority: cacheBug.Priority, Category: cacheBug.Category, File: cacheBug.File,
						Line: cacheBug.Line, Title: cacheBug.Title, Description: "bound it"}
					payload, _ := json.Marshal(finding.FixPayload{PRNumber: loopPR, Round: 1, IssuesToFix: []finding.Finding{bug}, OptionalIssues: []finding.Finding{}})
					path := filepath.Join(lf.env.Root, "payload.json")
					if err := os.WriteFile(path, payload, 0o600); err != nil {
						t.Fatal(err)
					}
					args = append(args, "--findings", path)
				}
				wantCode(t, lf.env.Run(t, args...), 0)
				if lf.fix.Count() == 0 {
					t.Fatal("fix called no model")
				}
				if fresh {
					lf.env.Set("OCDX_STATE_DIR", t.TempDir())
				}
				fixes := lf.fix.Count()
				again := cacheBug
				again.Line = line(4) // the fix moved it
				lf.findingRound(again)

				res := lf.run("--yes")

				wantCode(t, res, 3)
				// Stuck under its first ID where a review carried it there
				// (docs/architecture.md, Findings and agreement).
				id := again.id()
				if from == "review" {
					id = cacheBug.id()
				}
				wantContains(t, "stderr", res.Stderr, "stuck", id)
				if lf.fix.Count() != fixes {
					t.Error("the finding gh ocdx fix fixed was sent to the fix model again")
				}
			})
		}
	}
}

// A finding gh ocdx fix fixed is not carried by the next re-review: when
// the reviewers raise nothing, the loop converges, neither stuck nor fixed
// again.
func TestAFixByTheFixVerbIsNotCarried(t *testing.T) {
	t.Parallel()
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("fresh state %t", fresh), func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, nil)
			lf.gh.SetPermission(repo, "lead", "write")
			lf.findingRound(cacheBug)
			wantCode(t, lf.env.Run(t, "command", "31", "--comment-id", lf.comment("lead", "/ocdx review")), 3)
			wantCode(t, lf.env.Run(t, "fix", "31", "--yes"), 0)
			if fresh {
				lf.env.Set("OCDX_STATE_DIR", t.TempDir())
			}
			fixes := lf.fix.Count()
			lf.approveRound()

			res := lf.run("--yes")

			wantCode(t, res, 0)
			if strings.Contains(res.Stderr, "came back") || lf.fix.Count() != fixes {
				t.Errorf("the fixed finding came back (fix model calls %d → %d):\n%s", fixes, lf.fix.Count(), res.Stderr)
			}
		})
	}
}

// review-pr after a loop: the loop's open finding is not lost. review-pr's
// review is the basis of the next re-review with that finding, its line
// followed to review-pr's head, beside review-pr's own comment.
func TestReviewPRCarriesTheLoopsOpenFindings(t *testing.T) {
	t.Parallel()
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprintf("fresh state %t", fresh), func(t *testing.T) {
			t.Parallel()
			lf := newLoop(t, func(pr *testkit.PR) { pr.Permission = "READ" }) // review only: the finding stays open
			lf.findingRound(cacheBug)
			wantCode(t, lf.run("--yes"), 3)
			// A line above the finding's moves it to cache.go:4.
			testkit.WriteFiles(t, lf.repo.Clone, map[string]string{"cache.go": "package cache\n// Package cache caches.\n\nvar Size = 10\n\nfunc Get(k string) string { return k }\n"})
			testkit.Git(t, lf.repo.Clone, "commit", "-qam", "doc")
			testkit.Git(t, lf.repo.Clone, "push", "-q", "origin", lf.repo.Head)
			reviewed := lf.repo.RemoteOID(t, lf.repo.Head)
			review := `{"event":"COMMENT","body":"Fine.","comments":[{"path":"cache.go","line":2,"body":"Say what it caches"}]}`
			lf.fm.Script("rev-a", testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: review}))
			wantCode(t, lf.env.Run(t, "review-pr", "31", "--yes"), 0)
			lf.pushLater("later.go")
			if fresh {
				lf.env.Set("OCDX_STATE_DIR", t.TempDir())
			}
			calls := len(lf.fm.Requests("rev-a"))
			lf.approveRound()

			res := lf.run("--yes", "--json", "remaining")

			wantCode(t, res, 3) // nobody judged the loop's finding: still open
			task := string(lf.fm.Requests("rev-a")[calls].Body)
			wantContains(t, "the reviewer's task", task, "Diff since "+reviewed[:7], cacheBug.id()+"` P1 cache.go:4", "cache.go:2: Say what it caches")
			wantContains(t, "remaining", res.Stdout, cacheBug.id())
		})
	}
}
