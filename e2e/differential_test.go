package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/state"
)

// The differential test (docs/architecture.md, The verbs and their
// tests): the same verbs and the same events on one PR, on a machine that
// keeps its state directory and on one whose state directory is empty
// before every verb (a fresh CI runner), must reach the same decisions; and
// on either, a few invariants hold after every step. The PR, the reviewers
// and the people are the fakes' (testkit); the reviewers answer from the
// PR's head, not from the order of the calls, so that a machine that calls
// them more or fewer times still hears the same thing.
//
// By default a tenth of the pairs and diffDefaultSequences random
// sequences run; OCDX_DIFFERENTIAL=full (.ci/run) runs every pair and
// diffFullSequences sequences. OCDX_DIFF_SEQUENCES sets how many
// sequences run, OCDX_DIFF_SEED replays one.

const diffDefaultSequences, diffFullSequences = 2, 200

// diffFull reports whether OCDX_DIFFERENTIAL=full asks for the whole test.
func diffFull() bool { return os.Getenv("OCDX_DIFFERENTIAL") == "full" }

// The people of the PR: a writer, a reader (the PR's author) and an admin.
const (
	diffWriter = "wendy"
	diffReader = "mona"
	diffAdmin  = "ada"
)

// The findings the reviewers may raise.
var (
	diffQual = cacheBug // fixed by any fix
	diffSec  = modelFinding{Priority: "P1", Category: "security", File: "cache.go", Line: line(5), Title: "Keys are not validated"}
	diffNit  = modelFinding{Priority: "P3", Category: "style", File: "cache.go", Line: line(3), Title: "Name the size constant"}
)

// blockerThread is the writer's "must not ship" thread, with ids of its own
// so that it has one finding ID on every machine.
const blockerDBID = "4243"

var blockerID = "THREAD-" + blockerDBID

// persona is what the reviewers and the reply model of a sequence say: it
// is drawn from the seed, the same for both machines.
type persona struct {
	agree   bool // reviewer-2 raises the quality finding too
	sec     bool // reviewer-1 raises the security finding (no fix removes it)
	nit     bool // reviewer-2 suggests a P3
	blocker bool // the writer's thread asks for a change
	concede bool // the reply model concedes, rather than explains
	// stubborn: the fix leaves the quality finding in place (reviewer-1
	// raises it again: stuck).
	stubborn bool
}

// world is one machine's run of a sequence on its own copy of PR #31.
type world struct {
	*loopFix
	human *testkit.Repo // the people's own clone of the remote
	// clonedAt is the head the runner's clone was last put on, diffAt the
	// base and head the fake's diff was last made of.
	clonedAt, diffAt string
	pushed           int
	fresh            bool
	p                persona

	failing     bool              // reviewer-2 fails during the next verb
	failedLast  bool              // reviewer-2 failed during the last step
	stallReview bool              // reviewer-1 never answers (a kill waits for it)
	sec         map[string]bool   // the SEC- findings an admin dismissed
	mu          sync.Mutex        // guards what the fake models' answers read, and the maps below
	titles      map[string]string // the title of every finding ID a reviewer raised
	raised      map[string]bool   // the titles a reviewer raised during the step (a problem at any line)
	fixesSeen   int
	atHead      map[string][]byte // what git showed at a head commit (headGit)
	// What the checks of the last step found while reading it.
	twice, refixed []string
	unraised       []string // ledger entries no reviewer ever raised, with their status
	// settled are the findings the ledger ever called fixed or stuck: none
	// goes to the fix model again.
	settled map[string]bool
	// conceded are the findings a reply conceded: disputed until dismissed.
	conceded map[string]bool
	// readerResolved: the PR's author (a reader) resolved the writer's
	// blocking thread; writerDismissed: a writer or admin dismissed it.
	readerResolved, writerDismissed bool
	before                          posts.Ledger // the latest ledger before the step
	postsBefore                     int          // gh-ocdx's posts before the step
}

func newWorld(t *testing.T, fresh bool, p persona) *world {
	t.Helper()
	l := testkit.NewLoopPR(t, repo, loopPR, func(pr *testkit.PR) {
		pr.Author = diffReader
		if p.blocker {
			pr.Threads = []testkit.Thread{{ID: "PRRT_block", Comments: []testkit.ThreadComment{{ID: "PRRC_block", DatabaseID: blockerDBID,
				Body: "This must not ship: nothing evicts from the cache.", Login: diffWriter, Association: "MEMBER", Path: "cache.go", Line: 3}}}}
		}
	})
	lf := &loopFix{t: t, gh: l.GitHub, fm: l.Models, fix: l.Fix, env: l.Env, repo: l.Repo, pr: l.PR, number: loopPR}
	lf.env.WriteConfig(t, `{
  "reviewerModels": ["openai/rev-a", "anthropic/rev-b"],
  "commentsAnalyzerModel": "openai/analyzer",
  "prFixModel": "ollama/fixer",
  "replyModel": "openai/talker",
  "reviewPrModel": "openai/prrev",
  "verify": ["true"]
}`)
	// /ocdx fix is the base branch's call.
	commitTo(t, lf.repo, lf.repo.Base, map[string]string{".ocdx.json": `{"commands": {"fix": true}}` + "\n"})
	lf.start = lf.repo.RemoteOID(t, lf.repo.Head)
	for login, role := range map[string]string{diffWriter: "write", diffReader: "read", diffAdmin: "admin", testkit.Login: "write"} {
		lf.gh.SetPermission(repo, login, role)
	}
	human := *lf.repo
	human.Clone = filepath.Join(t.TempDir(), "human")
	testkit.Git(t, "", "clone", "--quiet", lf.repo.Remote, human.Clone)
	w := &world{loopFix: lf, human: &human, fresh: fresh, p: p, sec: map[string]bool{}, settled: map[string]bool{}, conceded: map[string]bool{}, titles: map[string]string{}, raised: map[string]bool{}}
	w.fm.Answer("rev-a", func(testkit.ModelRequest) testkit.Step {
		w.mu.Lock()
		stall := w.stallReview
		w.mu.Unlock()
		if stall {
			return testkit.Stall(time.Minute, "")
		}
		var fs []modelFinding
		if p.stubborn || !w.fixed() {
			fs = append(fs, w.at(diffQual))
		}
		if p.sec {
			fs = append(fs, w.at(diffSec))
		}
		if len(fs) == 0 {
			return reviewerReply("reviewer-1", "approve")
		}
		return reviewerReply("reviewer-1", "request_changes", fs...)
	})
	w.fm.Answer("rev-b", func(testkit.ModelRequest) testkit.Step {
		w.mu.Lock()
		failing := w.failing
		w.mu.Unlock()
		if failing {
			return testkit.Fail(500, "")
		}
		var fs []modelFinding
		if p.agree && !w.fixed() {
			fs = append(fs, w.at(diffQual))
		}
		if p.nit {
			fs = append(fs, w.at(diffNit))
		}
		if len(fs) == 0 {
			return reviewerReply("reviewer-2", "approve")
		}
		return reviewerReply("reviewer-2", "comment", fs...)
	})
	// review-pr's model comments on the line of each finding reviewer-1
	// would raise.
	w.fm.Answer("prrev", func(testkit.ModelRequest) testkit.Step {
		var fs []modelFinding
		if p.stubborn || !w.fixed() {
			fs = append(fs, w.at(diffQual))
		}
		if p.sec {
			fs = append(fs, w.at(diffSec))
		}
		review := map[string]any{"event": "APPROVE", "body": "**Verdict:** fine.", "comments": []any{}}
		if len(fs) > 0 {
			var cs []any
			for _, f := range fs {
				cs = append(cs, map[string]any{"path": f.File, "line": *f.Line, "body": f.Title})
			}
			review = map[string]any{"event": "REQUEST_CHANGES", "body": "**Verdict:** changes needed.", "comments": cs}
		}
		args, _ := json.Marshal(review)
		return testkit.CallTools(testkit.FakeCall{Name: "submit_review", Args: string(args)})
	})
	w.fm.Answer("analyzer", func(testkit.ModelRequest) testkit.Step { return analyzerReply() })
	w.fm.Answer("talker", func(testkit.ModelRequest) testkit.Step {
		if p.concede {
			return replyEnvelope("concede", "You're right: the size is a fixed bound by design.", "cache.go:3 var Size = 10")
		}
		return replyEnvelope("explain", "Nothing evicts: the map only grows.", "cache.go:3 var Size = 10")
	})
	return w
}

// fixed reports whether the PR's head holds a fix the fix model made.
func (w *world) fixed() bool {
	out, err := w.headGit("ls-tree", "")
	return err == nil && strings.Contains(string(out), "fix-round-")
}

// headGit is git command (ls-tree, or show of path) at the PR's head on
// the remote, run once per head commit: the reviewers' answers ask it for
// each finding, and what a commit holds never changes.
func (w *world) headGit(command, path string) ([]byte, error) {
	rev := w.repo.RemoteOID(w.t, w.repo.Head)
	if path != "" {
		rev += ":" + path
	}
	args := []string{"--git-dir", w.repo.Remote, command}
	if command == "ls-tree" {
		args = append(args, "--name-only")
	}
	key := command + " " + rev
	w.mu.Lock()
	out, ok := w.atHead[key]
	w.mu.Unlock()
	if ok {
		return out, nil
	}
	out, err := exec.Command("git", append(args, rev)...).Output()
	if err == nil {
		w.mu.Lock()
		if w.atHead == nil {
			w.atHead = map[string][]byte{}
		}
		w.atHead[key] = out
		w.mu.Unlock()
	}
	return out, err
}

// at is f at the line its code is on at the PR's head: a reviewer raises
// the same problem where the code moved.
func (w *world) at(f modelFinding) modelFinding {
	code := map[int]string{3: "var Size", 5: "func Get"}[*f.Line]
	out, err := w.headGit("show", "cache.go")
	if err != nil {
		return f
	}
	for i, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, code) {
			f.Line = line(i + 1)
		}
	}
	w.mu.Lock()
	w.titles[f.id()] = f.Title
	w.raised[f.Title] = true
	w.mu.Unlock()
	return f
}

// sync puts the clone on the PR's head as the remote has it, as a checkout
// of the PR on any machine would; the kept machine keeps a checkout with
// work in progress (a killed fix's) as it is.
func (w *world) sync() {
	head := w.repo.RemoteOID(w.t, w.repo.Head)
	if !w.fresh && (head == w.clonedAt || testkit.Git(w.t, w.repo.Clone, "status", "--porcelain") != "") {
		return
	}
	if head != w.clonedAt {
		testkit.Git(w.t, w.repo.Clone, "fetch", "--quiet", "origin")
	}
	testkit.Git(w.t, w.repo.Clone, "checkout", "--quiet", "--force", "-B", w.repo.Head, "origin/"+w.repo.Head)
	if w.fresh {
		testkit.Git(w.t, w.repo.Clone, "clean", "--quiet", "-fdx")
	}
	w.clonedAt = head
}

// pushes counts the people's pushes, so that each changes something.
func (w *world) pushes() int {
	w.pushed++
	return w.pushed
}

// humanSync puts the people's clone on the remote's branches.
func (w *world) humanSync() {
	h := w.human
	testkit.Git(w.t, h.Clone, "fetch", "--quiet", "origin")
	testkit.Git(w.t, h.Clone, "checkout", "--quiet", "-B", h.Base, "origin/"+h.Base)
	testkit.Git(w.t, h.Clone, "checkout", "--quiet", "-B", h.Head, "origin/"+h.Head)
}

// beforeVerb is what a runner starts from: the PR's head checked out and,
// on a fresh runner, no state directory.
func (w *world) beforeVerb() {
	w.sync()
	if at := w.repo.RemoteOID(w.t, w.repo.Base) + w.repo.RemoteOID(w.t, w.repo.Head); at != w.diffAt {
		w.humanSync()
		w.gh.SetDiff(repo, w.number, w.human.Diff(w.t))
		w.diffAt = at
	}
	if w.fresh {
		dir := w.env.Vars["OCDX_STATE_DIR"]
		if err := os.RemoveAll(dir); err != nil {
			w.t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			w.t.Fatal(err)
		}
	}
}

// decision is what a step decided, as a user sees it: the exit code, what
// review-loop's --json says, the PR's latest ledger, gh-ocdx's threads and
// what the fix model was asked to fix.
type decision struct {
	Code      int               `json:"code"`
	Outcome   string            `json:"outcome,omitempty"`
	Remaining []string          `json:"remaining,omitempty"`
	Stuck     []string          `json:"stuck,omitempty"`
	Dismissed []string          `json:"dismissed,omitempty"`
	Ledger    map[string]string `json:"ledger,omitempty"`
	Threads   []string          `json:"threads,omitempty"`
	Fixes     [][]string        `json:"fixes,omitempty"` // the IDs each fix was asked to fix
	// LocalStuck are the stuck findings `state show` lists.
	LocalStuck []string `json:"localStuck,omitempty"`

	stdout string // the verb's, not a decision
}

func (d decision) String() string {
	b, _ := json.Marshal(d)
	return string(b)
}

// fields names decision's fields for the checks' keys.
func (d decision) fields() map[string]any {
	return map[string]any{"code": d.Code, "outcome": d.Outcome, "remaining": d.Remaining, "stuck": d.Stuck, "dismissed": d.Dismissed,
		"ledger": d.Ledger, "threads": d.Threads, "fixes": d.Fixes, "localstuck": d.LocalStuck}
}

var reThreadFinding = regexp.MustCompile("`([A-Z]{2,6}-[0-9a-f]{8})`")

// observe reads the decision of the step that ended with res (nil: an
// event that ran no verb).
func (w *world) observe(res *testkit.Result) decision {
	var d decision
	if res != nil {
		d.Code = res.Code
		var out struct {
			Outcome   string            `json:"outcome"`
			Remaining []finding.Finding `json:"remaining"`
			Stuck     []string          `json:"stuck"`
			Rounds    []struct {
				Dismissed []finding.Finding `json:"dismissed"`
			} `json:"rounds"`
		}
		if strings.HasPrefix(strings.TrimSpace(res.Stdout), "{") && json.Unmarshal([]byte(res.Stdout), &out) == nil && out.Outcome != "" {
			d.Outcome = out.Outcome
			for _, f := range out.Remaining {
				d.Remaining = append(d.Remaining, ownThread(f.ID))
			}
			d.Stuck = out.Stuck
			if n := len(out.Rounds); n > 0 {
				for _, f := range out.Rounds[n-1].Dismissed {
					d.Dismissed = append(d.Dismissed, f.ID)
				}
			}
		}
	}
	if l, ok := w.ledger(); ok {
		d.Ledger = map[string]string{}
		w.unraised = nil
		for _, e := range l.Findings {
			w.mu.Lock()
			_, raised := w.titles[e.ID]
			w.mu.Unlock()
			if !raised && !strings.HasPrefix(e.ID, "THREAD-") {
				// The invariant unraised-in-ledger is about it; left out
				// here, it makes no second difference.
				w.unraised = append(w.unraised, e.ID+" "+string(cmpOr(e.Status, finding.StatusOpen)))
				continue
			}
			d.Ledger[ownThread(e.ID)] = string(cmpOr(e.Status, finding.StatusOpen))
		}
	}
	for _, th := range w.gh.Threads(repo, w.number) {
		first := th.Comments[0]
		name := first.Login + "@" + first.Path + ":" + strconv.Itoa(first.Line)
		if first.DatabaseID == blockerDBID {
			name = blockerID
		} else if m := reThreadFinding.FindStringSubmatch(first.Body); m != nil && first.Login == w.gh.Login {
			name = m[1] + "@" + strconv.Itoa(first.Line)
		}
		answers := 0
		for _, c := range th.Comments[1:] {
			if c.Login == w.gh.Login {
				answers++
			}
		}
		d.Threads = append(d.Threads, fmt.Sprintf("%s resolved=%t answers=%d", name, th.Resolved, answers))
	}
	slices.Sort(d.Threads)
	sent := w.fix.Sent()
	for _, asked := range sent[w.fixesSeen:] {
		var ids []string
		titles := map[string]bool{}
		for _, a := range asked {
			ids = append(ids, a.ID)
			if titles[a.Title] {
				w.twice = append(w.twice, fmt.Sprintf("the fix model was asked to fix %q twice in one fix", a.Title))
			}
			titles[a.Title] = true
			if w.settled[a.ID] {
				w.refixed = append(w.refixed, a.ID)
			}
			w.mu.Lock()
			for id, st := range d.Ledger {
				if st == string(finding.StatusDismissed) && w.titles[id] == a.Title && id != a.ID {
					w.twice = append(w.twice, fmt.Sprintf("%s (%q) was sent to the fix model: it is dismissed as %s, at another line", a.ID, a.Title, id))
				}
			}
			w.mu.Unlock()
		}
		d.Fixes = append(d.Fixes, slices.Sorted(slices.Values(ids)))
	}
	w.fixesSeen = len(sent)
	if !w.fresh || res != nil {
		d.LocalStuck = w.localStuck()
	}
	return d
}

// ownThread names the THREAD- finding of one of gh-ocdx's own posts (any
// thread but the writer's) alike on both machines, whose posts have other
// ids: the invariant own-post-as-finding is about it, not the differential.
func ownThread(id string) string {
	if strings.HasPrefix(id, "THREAD-") && id != blockerID {
		return "THREAD-(gh-ocdx's own)"
	}
	return id
}

func cmpOr(s, def finding.Status) finding.Status {
	if s == "" {
		return def
	}
	return s
}

// ledger is the latest ledger gh-ocdx posted on the PR.
func (w *world) ledger() (posts.Ledger, bool) {
	own := w.own()
	for i := len(own) - 1; i >= 0; i-- {
		if l, err := posts.ParseLedger(own[i].Body); err == nil {
			return l, true
		}
	}
	return posts.Ledger{}, false
}

// localStuck lists what `state show` records as stuck; on a fresh runner,
// what the step itself recorded.
func (w *world) localStuck() []string {
	res := w.env.Run(w.t, "state", "show", "--pr", strconv.Itoa(w.number), "--json", "stuck")
	var rec state.PR
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &rec) != nil {
		return nil
	}
	var out []string
	for _, s := range rec.Stuck {
		out = append(out, s.ID)
	}
	slices.Sort(out)
	return out
}

// A step of a sequence: a verb, or something a person or the world does.
type step struct {
	Kind string // see (*world).apply
	Who  string // diffWriter, diffReader, diffAdmin, or "" for the CLI's user
	ID   string // the finding a dismissal, restore or resolution names
}

func (s step) String() string {
	out := s.Kind
	if s.Who != "" {
		out += " by " + s.Who
	}
	if s.ID != "" {
		out += " " + s.ID
	}
	return out
}

// apply runs s on w and returns its decision.
func (w *world) apply(s step) decision {
	t := w.t
	t.Helper()
	n := strconv.Itoa(w.number)
	w.failedLast = false
	w.twice, w.refixed = nil, nil
	w.mu.Lock()
	clear(w.raised)
	w.mu.Unlock()
	w.before, _ = w.ledger()
	w.postsBefore = len(w.own())
	run := func(args ...string) decision {
		w.beforeVerb()
		res := w.env.Run(t, args...)
		w.mu.Lock()
		w.failedLast, w.failing = w.failing, false
		w.mu.Unlock()
		if args[0] == "review-pr" {
			// review-pr's findings are its model's comments, under IDs of
			// their own: what its ledger names, review-pr raised.
			if l, ok := w.ledger(); ok {
				w.mu.Lock()
				for _, e := range l.Findings {
					if _, known := w.titles[e.ID]; !known && !strings.HasPrefix(e.ID, "THREAD-") {
						w.titles[e.ID], w.raised[e.Title] = e.Title, true
					}
				}
				w.mu.Unlock()
			}
		}
		d := w.observe(&res)
		d.stdout = res.Stdout
		return d
	}
	command := func(body string) decision {
		w.dismissing(s)
		id := w.comment(s.Who, body)
		return run("command", n, "--comment-id", id)
	}
	switch s.Kind {
	case "review-pr":
		return run("review-pr", n, "--yes")
	case "review-loop":
		return run("review-loop", n, "--yes", "--json")
	case "fix":
		return run("fix", n, "--yes")
	case "review":
		return run("review", "--base", w.repo.Base)
	case "reply":
		d := run("reply", n, "--yes", "--json")
		var out replyJSON
		if json.Unmarshal([]byte(d.stdout), &out) == nil {
			for _, a := range out.Answered {
				if a.Kind == "concede" {
					w.conceded[a.Finding] = true
				}
			}
		}
		return d
	case "dismiss":
		return run("dismiss", n, s.ID)
	case "restore":
		return run("restore", n, s.ID)
	case "/ocdx review":
		return command("/ocdx review")
	case "/ocdx fix":
		return command("/ocdx fix")
	case "/ocdx dismiss":
		return command("/ocdx dismiss " + s.ID)
	case "comment dismiss":
		w.dismissing(s)
		w.comment(s.Who, "/ocdx dismiss "+s.ID)
	case "comment restore":
		w.comment(s.Who, "/ocdx restore "+s.ID)
	case "thread reply":
		for _, th := range w.gh.Threads(repo, w.number) {
			if th.Comments[0].Login == w.gh.Login && !th.Resolved {
				w.gh.AddThreadReply(th.ID, s.Who, "MEMBER", "This is intentional: the size is fixed on purpose.")
				break
			}
		}
	case "resolve":
		for _, th := range w.gh.Threads(repo, w.number) {
			if !th.Resolved && (s.ID == blockerID) == (th.Comments[0].DatabaseID == blockerDBID) {
				w.readerResolved = w.readerResolved || s.ID == blockerID && s.Who == diffReader
				w.gh.ResolveThread(th.ID, s.Who)
				break
			}
		}
	case "push":
		w.humanSync()
		commitTo(t, w.human, w.human.Head, map[string]string{"notes.txt": fmt.Sprintf("notes of push %d\n", w.pushes())})
	case "push-shift":
		// Lines above the findings' code: they move down one.
		w.humanSync()
		b, err := os.ReadFile(filepath.Join(w.human.Clone, "cache.go"))
		if err != nil {
			t.Fatal(err)
		}
		commitTo(t, w.human, w.human.Head, map[string]string{"cache.go": "// Package cache caches.\n" + string(b)})
	case "force-push":
		// The base moves on and the author rebases the branch on it.
		w.humanSync()
		commitTo(t, w.human, w.human.Base, map[string]string{"BASE.md": fmt.Sprintf("base moved (%d)\n", w.pushes())})
		testkit.Git(t, w.human.Clone, "rebase", "--quiet", w.human.Base)
		testkit.Git(t, w.human.Clone, "push", "--quiet", "--force", "origin", w.human.Head)
	case "base-merge":
		w.humanSync()
		commitTo(t, w.human, w.human.Base, map[string]string{"MERGED.md": fmt.Sprintf("base moved (%d)\n", w.pushes())})
		testkit.Git(t, w.human.Clone, "merge", "--quiet", "--no-edit", w.human.Base)
		testkit.Git(t, w.human.Clone, "push", "--quiet", "origin", w.human.Head)
	case "reviewer fails":
		w.mu.Lock()
		w.failing = true
		w.mu.Unlock()
	case "kill in review", "kill after post", "kill in fix", "kill after push":
		return w.kill(s.Kind)
	default:
		t.Fatalf("unknown step %q", s.Kind)
	}
	return w.observe(nil)
}

// dismissing notes who dismisses what in s, for the invariants.
func (w *world) dismissing(s step) {
	if s.Kind != "/ocdx dismiss" && s.Kind != "comment dismiss" {
		return
	}
	if s.Who == diffAdmin && strings.HasPrefix(s.ID, "SEC-") {
		w.sec[s.ID] = true
	}
	if s.Who == diffAdmin || s.Who == diffWriter {
		w.writerDismissed = w.writerDismissed || s.ID == blockerID
	}
}

// kill runs review-loop (the binary) until it is held at a phase, and kills
// it there (SIGKILL): the phase is held, not raced, so both machines die at
// the same point.
func (w *world) kill(phase string) decision {
	t := w.t
	w.beforeVerb()
	reviews, fixes, head := len(w.gh.Reviews(repo, w.number)), w.fix.Count(), w.repo.RemoteOID(t, w.repo.Head)
	var ready func() bool
	switch phase {
	case "kill in review":
		w.mu.Lock()
		w.stallReview = true
		w.mu.Unlock()
		n := len(w.fm.Requests("rev-a"))
		ready = func() bool { return len(w.fm.Requests("rev-a")) > n }
	case "kill after post":
		w.gh.Fail(testkit.Fault{Kind: "review", Apply: true, Delay: time.Minute})
		ready = func() bool { return len(w.gh.Reviews(repo, w.number)) > reviews }
	case "kill in fix":
		w.fix.Mu.Lock()
		w.fix.Block = make(chan struct{})
		w.fix.Mu.Unlock()
		ready = func() bool { return w.fix.Count() > fixes }
	case "kill after push":
		w.gh.Fail(testkit.Fault{Kind: "pr", Delay: time.Minute})
		ready = func() bool { return w.repo.RemoteOID(t, w.repo.Head) != head }
	}
	c := exec.Command(testkit.Binary(t), "review-loop", "--yes")
	c.Dir, c.Env = w.env.Dir, w.env.List()
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	code := -9 // killed at the phase
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if ready() {
			c.Process.Kill()
			<-done
			break
		}
		select {
		case <-done:
			// It ended before the phase (nothing to fix, say).
			code = c.ProcessState.ExitCode()
		default:
		}
		if code != -9 {
			break
		}
		if time.Now().After(deadline) {
			c.Process.Kill()
			<-done
			t.Fatalf("%s: the run never reached the phase:\n%s", phase, stderr.String())
		}
	}
	w.mu.Lock()
	w.stallReview = false
	w.failedLast, w.failing = w.failing, false
	w.mu.Unlock()
	w.gh.ClearFaults()
	// The held fix request is left to end with its connection: released,
	// it could still answer the dead process and count as a fix.
	w.fix.Mu.Lock()
	w.fix.Block = nil
	w.fix.Mu.Unlock()
	return w.observe(&testkit.Result{Code: code})
}

// failure is one failed check of a step (at: its index).
type failure struct {
	check, detail string
	at            int
}

// compare lists where kept and fresh decided differently.
func compare(kept, fresh decision, skip ...string) []failure {
	var out []failure
	kf, ff := kept.fields(), fresh.fields()
	for _, k := range slices.Sorted(mapsKeys(kf)) {
		if k == "localstuck" || slices.Contains(skip, k) {
			continue // a fresh runner's state file knows only its own step
		}
		if !reflect.DeepEqual(kf[k], ff[k]) {
			out = append(out, failure{"differ/" + k, fmt.Sprintf("kept %v, fresh %v", kf[k], ff[k]), 0})
		}
	}
	return out
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// reAnswerOf finds the comment an answer answers: a command's by its id, a
// refusal's by its URL.
var reAnswerOf = regexp.MustCompile(`<!-- ocdx:command=(\d+) -->|<!-- ocdx:refused \S*#issuecomment-(\d+) -->`)

// invariants lists what does not hold on w after a step that decided d.
func (w *world) invariants(s step, d decision) []failure {
	var out []failure
	add := func(check, f string, args ...any) {
		out = append(out, failure{"inv/" + check, fmt.Sprintf(f, args...), 0})
	}
	l, hasLedger := w.ledger()
	// No problem counted twice: two open entries for one title, or two
	// remaining findings with one title.
	titles := map[string]string{}
	for _, e := range l.Findings {
		if e.Title == "" || !cmpOr(e.Status, finding.StatusOpen).Remaining() {
			continue
		}
		if other, ok := titles[e.Title]; ok {
			add("counted-twice", "%s and %s are both %q in the ledger", other, e.ID, e.Title)
		}
		titles[e.Title] = e.ID
	}
	// No finding in two statuses at once.
	seen := map[string]bool{}
	for _, e := range l.Findings {
		if seen[e.ID] {
			add("two-statuses", "%s is in the ledger twice", e.ID)
		}
		seen[e.ID] = true
	}
	for _, id := range d.Dismissed {
		if slices.Contains(d.Stuck, id) || slices.Contains(d.Remaining, id) {
			add("two-statuses", "%s is dismissed and remaining or stuck", id)
		}
	}
	for _, id := range d.LocalStuck {
		if d.Ledger[id] == string(finding.StatusDismissed) || d.Ledger[id] == string(finding.StatusDisputed) {
			add("two-statuses", "%s is stuck in the state file and %s in the ledger", id, d.Ledger[id])
		}
	}
	for _, x := range w.twice {
		add("counted-twice", "%s", x)
	}
	// Only gh-ocdx's own threads and the writer's are on the PR: a
	// THREAD- finding of another is gh-ocdx's own post taken for a
	// person's.
	for id, st := range d.Ledger {
		if strings.HasPrefix(id, "THREAD-") && id != blockerID && finding.Status(st).Remaining() {
			add("own-post-as-finding", "%s is %s: one of gh-ocdx's own posts", id, st)
		}
	}
	// A fix pushed by any verb counts: what was fixed or stuck never goes
	// to the fix model again.
	for _, id := range w.refixed {
		add("refixed", "%s was sent to the fix model again", id)
	}
	// Stuck means raised again after a fix: a reviewer raised it (at its
	// line or at the one it moved to).
	for id, st := range d.Ledger {
		w.mu.Lock()
		raised := w.raised[w.titles[id]]
		w.mu.Unlock()
		if st == string(finding.StatusStuck) && !slices.ContainsFunc(w.before.Findings, func(e posts.LedgerEntry) bool { return e.ID == id && e.Status == finding.StatusStuck }) && !raised {
			add("stuck-unraised", "%s became stuck and no reviewer raised it", id)
		}
	}
	for id, st := range d.Ledger {
		if st == string(finding.StatusFixed) || st == string(finding.StatusStuck) {
			w.settled[id] = true
		}
	}
	// A concession is remembered: disputed until dismissed, in every
	// ledger posted after it (reply posts none).
	for id := range w.conceded {
		if s.Kind == "reply" {
			break
		}
		if st, ok := d.Ledger[id]; ok && (st == string(finding.StatusStuck) || st == string(finding.StatusOpen)) {
			add("concession-forgotten", "%s was conceded and is %s", id, st)
		}
	}
	// reply concedes in no thread whose finding is fixed or resolved.
	if s.Kind == "reply" {
		for _, e := range w.before.Findings {
			if (e.Status == finding.StatusFixed || e.Status == finding.StatusResolved) && w.conceded[e.ID] {
				add("conceded-fixed", "%s was %s and a reply conceded it", e.ID, e.Status)
			}
		}
	}
	// A reader resolving a writer's blocking thread does not clear it.
	if d.Outcome != "" && d.Code == 0 && w.readerResolved && !w.writerDismissed {
		add("reader-cleared", "converged after the PR's author (a reader) resolved %s", blockerID)
	}
	// gh-ocdx's thread of a finding a later review judged fixed or
	// resolved is resolved.
	if d.Outcome != "" {
		for _, th := range w.gh.Threads(repo, w.number) {
			if m := reThreadFinding.FindStringSubmatch(th.Comments[0].Body); m != nil && th.Comments[0].Login == w.gh.Login && !th.Resolved && d.Ledger[m[1]] == string(finding.StatusResolved) {
				add("fixed-thread-open", "%s is resolved and its thread is open", m[1])
			}
		}
	}
	// dismiss of an ID no review raised exits 1 and posts nothing.
	if s.Kind == "dismiss" && !slices.ContainsFunc(w.before.Findings, func(e posts.LedgerEntry) bool { return e.ID == s.ID }) && s.ID != blockerID {
		if d.Code != 1 || len(w.own()) != w.postsBefore {
			add("dismiss-unknown", "dismiss %s (no review raised it): exit %d, %d posts", s.ID, d.Code, len(w.own())-w.postsBefore)
		}
	}
	// No dismissed finding blocks.
	for _, id := range d.Remaining {
		if d.Ledger[id] == string(finding.StatusDismissed) {
			add("dismissed-blocks", "%s is dismissed and remaining", id)
		}
	}
	if d.Outcome != "" && d.Code == 3 && len(d.Remaining) == 0 && !w.failedLast {
		add("dismissed-blocks", "%s did not converge with nothing remaining (%s)", s, d.Outcome)
	}
	// No head converges that no reviewer read.
	if d.Outcome != "" && d.Code == 0 {
		head := w.repo.RemoteOID(w.t, w.repo.Head)
		if !hasLedger || l.ReviewedHead() != head || l.Head != head {
			add("converged-unread", "converged on %s; the ledger's head %s, reviewed %s", head, l.Head, l.ReviewedHead())
		}
	}
	// No SEC- finding cleared without an admin.
	for id, st := range d.Ledger {
		if strings.HasPrefix(id, "SEC-") && (st == string(finding.StatusDismissed) || st == string(finding.StatusResolved)) && !w.sec[id] {
			add("sec-cleared", "%s is %s and no admin dismissed it", id, st)
		}
	}
	// Nothing answered twice: a command, a refusal, a reply.
	tags := map[string]int{}
	for _, c := range w.own() {
		answered := map[string]bool{}
		for _, m := range reAnswerOf.FindAllStringSubmatch(c.Body, -1) {
			answered["the comment "+m[1]+m[2]] = true
		}
		for k := range answered {
			tags[k]++
		}
		if m := reTag.FindString(c.Body); m != "" {
			tags[m]++
		}
	}
	for tag, n := range tags {
		if n > 1 {
			add("answered-twice", "%s posted %d times", tag, n)
		}
	}
	// The ledger holds only what a review raised (or a thread).
	for _, e := range w.unraised {
		add("unraised-in-ledger", "%s is in the ledger and no reviewer raised it", e)
	}
	// One thread per finding and line (a finding whose line moved may
	// get one at its new line).
	threads := map[string]int{}
	for _, th := range d.Threads {
		if id, _, _ := strings.Cut(th, " "); !strings.HasPrefix(id, w.gh.Login+"@") && id != blockerID {
			if threads[id]++; threads[id] == 2 {
				add("duplicate-thread", "%s has two threads", id)
			}
		}
	}
	// In a thread, each person's reply is answered once at most (gh-ocdx's
	// own notes there, a fix's say, answer nobody).
	for _, th := range w.gh.Threads(repo, w.number) {
		people, answers := map[string]int{}, map[string]int{}
		for _, c := range th.Comments[1:] {
			if c.Login != w.gh.Login {
				people[c.Login]++
				continue
			}
			for _, who := range []string{diffWriter, diffReader, diffAdmin} {
				if strings.Contains(c.Body, "@"+who+" ") {
					answers[who]++
				}
			}
		}
		for who, n := range answers {
			if n > people[who] {
				add("answered-twice", "thread %s: %d answers to %d replies of %s", th.ID, n, people[who], who)
			}
		}
	}
	return out
}

// pair is a sequence's pair of worlds.
type pair struct{ kept, fresh *world }

func newPair(t *testing.T, p persona) pair {
	return pair{newWorld(t, false, p), newWorld(t, true, p)}
}

// run applies the steps to both worlds and returns the failed checks. The
// machines are compared up to their first difference (after it, every
// step may differ for that one reason); the invariants are checked on
// each machine after every step.
func (pr pair) run(steps []step) []failure {
	var out []failure
	resumable, differed := false, false
	for i, s := range steps {
		k := pr.kept.apply(s)
		f := pr.fresh.apply(s)
		pr.kept.t.Logf("step %d, %s:\n  kept  %s\n  fresh %s", i+1, s, k, f)
		// A killed run leaves what only the kept machine has (the run's
		// record, a fix's work in progress): it resumes the run where a
		// fresh one starts one, so a second kill holds the two at other
		// phases. Until a run ends, they are not comparable; the run that
		// ends decides alike, with another count of fixes.
		var diffs []failure
		switch {
		case differed, resumable && !endsRun(s):
		case resumable:
			diffs = compare(k, f, "fixes")
			resumable = false
		default:
			diffs = compare(k, f)
		}
		resumable = resumable || strings.HasPrefix(s.Kind, "kill ")
		differed = differed || len(diffs) > 0
		for _, x := range pr.kept.invariants(s, k) {
			diffs = append(diffs, failure{x.check, "kept: " + x.detail, 0})
		}
		for _, x := range pr.fresh.invariants(s, f) {
			diffs = append(diffs, failure{x.check, "fresh: " + x.detail, 0})
		}
		for _, x := range diffs {
			x.at = i
			out = append(out, x)
		}
	}
	return out
}

// endsRun reports whether s runs review-loop to its end: a run killed
// before is resumed or replaced by then.
func endsRun(s step) bool {
	return s.Kind == "review-loop" || (s.Kind == "/ocdx review" || s.Kind == "/ocdx fix") && s.Who != diffReader
}

// verb reports whether s runs gh-ocdx.
func verb(s step) bool {
	switch s.Kind {
	case "comment dismiss", "comment restore", "thread reply", "resolve", "push", "push-shift", "force-push", "base-merge", "reviewer fails":
		return false
	}
	return true
}

// reportFailures fails t with the failures, naming the sequence and how to
// replay it.
func reportFailures(t *testing.T, steps []step, fs []failure, replay string) {
	t.Helper()
	if len(fs) == 0 {
		return
	}
	var lines []string
	for _, f := range fs {
		lines = append(lines, fmt.Sprintf("step %d, %s: %s", f.at+1, f.check, f.detail))
	}
	seq := make([]string, len(steps))
	for i, s := range steps {
		seq[i] = fmt.Sprintf("%d. %s", i+1, s)
	}
	t.Errorf("the sequence\n  %s\n%s\nfailed:\n%s", strings.Join(seq, "\n  "), replay, strings.Join(lines, "\n"))
}

// matrixVerbs are the verbs of the pairs, each with what precedes it on
// the PR: a reply needs one to answer, a command its comment.
var matrixVerbs = [][]step{
	{{Kind: "review-pr"}},
	{{Kind: "review-loop"}},
	{{Kind: "fix"}},
	{{Kind: "review"}},
	{{Kind: "thread reply", Who: diffWriter}, {Kind: "reply"}},
	{{Kind: "/ocdx review", Who: diffWriter}},
	{{Kind: "/ocdx fix", Who: diffWriter}},
	{{Kind: "/ocdx dismiss", Who: diffWriter, ID: diffQual.id()}},
	{{Kind: "dismiss", ID: diffQual.id()}},
	{{Kind: "restore", ID: diffQual.id()}},
}

// TestDifferentialPairs runs every ordered pair of verbs on PR #31 (the
// quality finding raised by both reviewers, a P3 by one), on a kept and on
// a fresh state directory; by default a tenth of them, each verb first
// once and second once.
func TestDifferentialPairs(t *testing.T) {
	t.Parallel()
	p := persona{agree: true, nit: true, concede: true}
	for i, a := range matrixVerbs {
		for j, b := range matrixVerbs {
			if n := len(matrixVerbs); !diffFull() && j != (i+1)%n {
				continue
			}
			name := strings.ReplaceAll(a[len(a)-1].Kind+">"+b[len(b)-1].Kind, "/", "")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				steps := append(slices.Clone(a), b...)
				reportFailures(t, steps, newPair(t, p).run(steps), "")
			})
		}
	}
}

// randomSteps are the steps a random sequence draws from.
func randomStep(r *rand.Rand, p persona) step {
	ids := []string{diffQual.id(), diffSec.id(), diffNit.id()}
	if p.blocker {
		ids = append(ids, blockerID)
	}
	who := []string{diffWriter, diffReader, diffAdmin}[r.Intn(3)]
	id := ids[r.Intn(len(ids))]
	kinds := []step{
		{Kind: "review-pr"}, {Kind: "review-loop"}, {Kind: "review-loop"}, {Kind: "fix"}, {Kind: "review"}, {Kind: "reply"},
		{Kind: "dismiss", ID: id}, {Kind: "restore", ID: id},
		{Kind: "/ocdx review", Who: who}, {Kind: "/ocdx fix", Who: who}, {Kind: "/ocdx dismiss", Who: who, ID: id},
		{Kind: "comment dismiss", Who: who, ID: id}, {Kind: "comment restore", Who: who, ID: id},
		{Kind: "thread reply", Who: who}, {Kind: "resolve", Who: who, ID: []string{blockerID, ""}[r.Intn(2)]},
		{Kind: "push"}, {Kind: "push-shift"}, {Kind: "force-push"}, {Kind: "base-merge"}, {Kind: "reviewer fails"},
		{Kind: "kill in review"}, {Kind: "kill after post"}, {Kind: "kill in fix"}, {Kind: "kill after push"},
	}
	return kinds[r.Intn(len(kinds))]
}

// randomSequence is the persona and the 3 to 8 steps of seed.
func randomSequence(seed int64) (persona, []step) {
	r := rand.New(rand.NewSource(seed))
	p := persona{agree: r.Intn(2) == 0, sec: r.Intn(2) == 0, nit: r.Intn(3) == 0, blocker: r.Intn(3) == 0, concede: r.Intn(2) == 0, stubborn: r.Intn(3) == 0}
	steps := make([]step, 3+r.Intn(6))
	for i := range steps {
		steps[i] = randomStep(r, p)
	}
	return p, steps
}

// diffScenarios are sequences that reproduce issue 38's bullets, each on
// the persona it needs.
var diffScenarios = []struct {
	name  string
	p     persona
	steps []step
}{
	{"fix-then-raised-again", persona{sec: true}, []step{{Kind: "kill after post"}, {Kind: "fix"}, {Kind: "review-loop"}}},
	{"moved-problem", persona{sec: true}, []step{{Kind: "kill after post"}, {Kind: "push-shift"}, {Kind: "review-loop"}}},
	{"moved-dismissed", persona{agree: true}, []step{{Kind: "kill after post"}, {Kind: "comment dismiss", Who: diffWriter, ID: diffQual.id()}, {Kind: "push-shift"}, {Kind: "review-loop"}}},
	{"thread-dismissed", persona{blocker: true}, []step{{Kind: "comment dismiss", Who: diffWriter, ID: blockerID}, {Kind: "review-loop"}}},
	{"reader-resolves", persona{blocker: true}, []step{{Kind: "resolve", Who: diffReader, ID: blockerID}, {Kind: "review-loop"}}},
	{"stuck-conceded", persona{stubborn: true, concede: true}, []step{{Kind: "review-loop"}, {Kind: "thread reply", Who: diffWriter}, {Kind: "reply"}, {Kind: "review-loop"}}},
	{"refusal-once", persona{agree: true}, []step{{Kind: "/ocdx dismiss", Who: diffReader, ID: diffQual.id()}, {Kind: "review-loop"}}},
}

// TestDifferentialScenarios runs diffScenarios kept and fresh.
func TestDifferentialScenarios(t *testing.T) {
	t.Parallel()
	for _, sc := range diffScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			reportFailures(t, sc.steps, newPair(t, sc.p).run(sc.steps), fmt.Sprintf("persona %+v", sc.p))
		})
	}
}

// TestDifferentialRandom runs seeded random sequences kept and fresh.
func TestDifferentialRandom(t *testing.T) {
	t.Parallel()
	n := diffDefaultSequences
	if diffFull() {
		n = diffFullSequences
	}
	if v := os.Getenv("OCDX_DIFF_SEQUENCES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("OCDX_DIFF_SEQUENCES=%q: %v", v, err)
		}
	}
	seeds := make([]int64, n)
	for i := range seeds {
		seeds[i] = int64(i + 1)
	}
	if v := os.Getenv("OCDX_DIFF_SEED"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("OCDX_DIFF_SEED=%q: %v", v, err)
		}
		seeds = []int64{s}
	}
	for _, seed := range seeds {
		t.Run("seed="+strconv.FormatInt(seed, 10), func(t *testing.T) {
			t.Parallel()
			p, steps := randomSequence(seed)
			reportFailures(t, steps, newPair(t, p).run(steps), fmt.Sprintf("persona %+v; replay: OCDX_DIFF_SEED=%d go test ./e2e -run 'TestDifferentialRandom$'", p, seed))
		})
	}
}
