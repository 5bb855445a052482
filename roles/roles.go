// Package roles is the roles of a round (docs/architecture.md, The agents):
// the reviewers and the comments analyzer, their tasks, who plays at an
// effort tier, each run as an agent side by side within the token budget,
// and how each did.
package roles

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/consensus"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/prompts"
	"github.com/ocdx/gh-ocdx/rereview"
)

// Role is one configured model playing a role.
type Role struct {
	Name  string // reviewer-1 … reviewer-5, comments-analyzer
	Key   string // the configuration key naming the model, e.g. reviewerModels[0]
	Model string // provider/model, as configured
	LLM   llm.Model
}

// Status is how a role did in a round.
type Status struct {
	Role       string        `json:"role"`
	Model      string        `json:"model"`
	OK         bool          `json:"ok"`
	Error      string        `json:"error,omitempty"`
	Conclusion string        `json:"conclusion,omitempty"`
	Findings   int           `json:"findings"`
	Elapsed    time.Duration `json:"-"` // in JSON: elapsedSeconds
	Usage      tokens.Usage  `json:"usage"`
	CostUSD    float64       `json:"estimatedCostUsd,omitempty"` // with a price for its model
	Report     string        `json:"-"`                          // the role's fullReport
	// Err is the failure itself, for the run to tell a budget or a
	// configuration error from the rest.
	Err error `json:"-"`
}

// MarshalJSON writes the elapsed time in seconds, as every duration in
// gh-ocdx's JSON.
func (r Status) MarshalJSON() ([]byte, error) {
	type plain Status
	return json.Marshal(struct {
		plain
		ElapsedSeconds float64 `json:"elapsedSeconds"`
	}{plain(r), r.Elapsed.Seconds()})
}

const (
	reviewerSystem = "You are a senior code reviewer. You answer with exactly one BEGIN_JSON … END_JSON envelope."
	analyzerSystem = "You analyze GitHub pull request review threads. You answer with exactly one BEGIN_JSON … END_JSON envelope."
	maxPRBody      = 4 << 10
)

// AnalyzerName is the comments analyzer's role name; every other role of
// a round's Roles is a reviewer.
const AnalyzerName = "comments-analyzer"

// reviewerTask renders prompts/reviewer.md for one reviewer: references
// and a capped diff, the rest through tools (docs/architecture.md, The agents).
//
// Its parts run from the most stable to the least, so that a provider's
// prompt cache serves the next round and the next review (docs/architecture.md,
// Prompt caching): instructions, the repository's policy and the PR, then
// this round's replies, previous findings and diff, then the reviewer's
// name. breaks mark where the first two parts end.
func reviewerTask(agent string, rc *change.Context, re *rereview.Delta, rs []reply) (task string, breaks []int, err error) {
	pr := rc.Subject
	diff, since, prev := rc.Diff, "", []rereview.Previous(nil)
	if re != nil {
		diff, since, prev = re.Diff, text.ShortOID(re.Since), re.List()
	}
	body := strings.TrimSpace(posts.AuthorBody(pr.Body))
	if body == "" {
		body = "(no description)"
	} else if len(body) > maxPRBody {
		body = strings.ToValidUTF8(body[:maxPRBody], "") + "\n[body cut at 4KB]"
	}
	return prompts.RenderStable("reviewer.md", map[string]any{
		"Agent": agent, "Number": pr.Number, "Title": pr.Title, "URL": pr.URL, "Author": pr.Author,
		"BaseRef": pr.BaseRef, "HeadRef": pr.HeadRef, "Body": body, "LinkedIssues": pr.LinkedIssues,
		"FileSummary": rc.FileSummary(), "Files": rc.FileList(), "Diff": diff, "Replies": rs,
		"Since": since, "Previous": prev, "Evidence": rc.Evidence,
		"Instructions": change.Instructions(rc.Policy, pr.Files),
	})
}

// reply is a person's answer on a thread gh-ocdx opened for a finding.
type reply struct {
	ID, Where, Author, Body string
}

// maxReply bounds one reply shown to the reviewers.
const maxReply = 500

// replies are the answers people gave on gh-ocdx's open threads: the
// reviewers of the next round weigh them (a finding disputed, explained).
func replies(pr *github.PullRequest) []reply {
	var out []reply
	for _, t := range posts.OwnThreads(pr) {
		if t.Resolved {
			continue
		}
		where := t.Finding.File
		if t.Finding.Line != nil {
			where = fmt.Sprintf("%s:%d", where, *t.Finding.Line)
		}
		for _, c := range t.Replies {
			out = append(out, reply{ID: t.Finding.ID, Where: where, Author: c.Author, Body: text.OneLine(text.Excerpt(c.Body, maxReply))})
		}
		// gh-ocdx's own answers (gh ocdx reply), and whether it conceded.
		for _, c := range t.Answers {
			who := "gh-ocdx"
			if strings.Contains(c.Body, posts.ConcededTag(t.Finding.ID)) {
				who = "gh-ocdx (conceded: the finding is disputed)"
			}
			out = append(out, reply{ID: t.Finding.ID, Where: where, Author: who, Body: text.OneLine(text.Excerpt(posts.Visible(c.Body), maxReply))})
		}
	}
	return out
}

// threadView is what the analyzer sees of an unresolved thread.
type threadView struct {
	ID       string        `json:"id"`
	Path     string        `json:"path"`
	Line     *int          `json:"line"`
	Comments []commentView `json:"comments"`
}

type commentView struct {
	Author      string `json:"author"`
	Association string `json:"authorAssociation"`
	Body        string `json:"body"`
}

// maxCommentView bounds one thread comment shown to the analyzer, and
// maxThreadsView all of them.
const (
	maxCommentView = 2 << 10
	maxThreadsView = 48 << 10
)

// analyzerTask renders prompts/comments_analyzer.md: the analyzer is shown
// the threads that are findings (threadFs: unresolved, or resolved by
// someone whose word does not count).
func analyzerTask(pr *github.PullRequest, threadFs []finding.Finding, st finding.ReviewState, stats finding.ThreadStats, truncated bool) (string, []int, error) {
	var views []threadView
	size := 0
	findings := map[string]bool{}
	for _, f := range threadFs {
		findings[f.ID] = true
	}
	for _, th := range pr.Threads {
		if len(th.Comments) > 0 && posts.Own(pr, th.Comments[0].Body, th.Comments[0].Author) {
			continue // gh-ocdx's own threads: their replies go to the reviewers
		}
		var v threadView
		for _, c := range th.Comments {
			if posts.Own(pr, c.Body, c.Author) {
				continue
			}
			if v.ID == "" {
				v.ID, v.Path, v.Line = posts.ThreadID(c), c.Path, c.Line
			}
			v.Comments = append(v.Comments, commentView{Author: c.Author, Association: c.Association, Body: text.Excerpt(c.Body, maxCommentView)})
		}
		if !findings[v.ID] {
			continue
		}
		// The view is bounded like every prompt: past maxThreadsView the
		// analyzer is told there are more (the thread findings themselves
		// come from every thread read, not from its answer).
		b, _ := json.Marshal(v)
		if size += len(b); size > maxThreadsView {
			truncated = true
			break
		}
		views = append(views, v)
	}
	threads := "(none)"
	if len(views) > 0 {
		b, err := json.MarshalIndent(views, "", "  ")
		if err != nil {
			return "", nil, err
		}
		threads = string(b)
	}
	stJSON, _ := json.Marshal(st)
	statsJSON, _ := json.Marshal(stats)
	return prompts.RenderStable("comments_analyzer.md", map[string]any{
		"Number": pr.Number, "Title": pr.Title, "URL": pr.URL, "Marker": posts.Marker,
		"ReviewState": string(stJSON), "Stats": string(statsJSON), "Truncated": truncated, "Threads": threads,
	})
}

// Reviews is what the roles of one round produced.
type Reviews struct {
	Roles    []Status // reviewers in configuration order, then the analyzer
	Findings []finding.Finding
	Verdicts consensus.Verdicts              // a re-review's, on the previous findings
	Analyzer *finding.CommentsAnalyzerResult // nil when it failed
}

// Crew is who reviews a round at its effort tier (docs/architecture.md,
// Effort tiers): quick is the first reviewer alone, with the comments
// analyzer only when the PR has unresolved threads, and no verifier; deep
// has the verifier check every finding it may check, not only lone ones.
type Crew struct {
	Reviewers []Role
	Analyzer  bool
	Verifier  bool
	VerifyAll bool
	// Left and VerifierLeft are the configured reviewers and verifier the
	// tier leaves out, for the report.
	Left         int
	VerifierLeft bool
}

// Team is a run's configured roles and how they are run: each an agent on
// its task, within the run's token budget, a failure said once on
// Progress.
type Team struct {
	Reviewers []Role
	Analyzer  Role
	Verifier  *Role
	// ReviewerTools and AnalyzerTools build the read-only tools of a round
	// over the head it reviews.
	ReviewerTools func(head string) []llm.Tool
	AnalyzerTools func(head string) []llm.Tool
	Budget        *llm.Budget
	MaxIters      int // model calls per role (0: the llm default)
	Progress      func(format string, a ...any)
	// failures are the role errors said, each with the role that said it
	// first: a second role failing the same way says so in a word.
	failMu   sync.Mutex
	failures map[string]string
}

// Crew is who plays a round at tier t of a PR with unresolved threads.
func (t *Team) Crew(tier effort.Tier, unresolved int) Crew {
	// A team without a comments analyzer (the local review: a branch has
	// no threads) plays none.
	analyzer := t.Analyzer.Name != ""
	c := Crew{Reviewers: t.Reviewers, Analyzer: analyzer, Verifier: t.Verifier != nil}
	switch tier {
	case effort.Quick:
		c.Reviewers, c.Analyzer, c.Verifier = t.Reviewers[:min(1, len(t.Reviewers))], analyzer && unresolved > 0, false
		c.Left, c.VerifierLeft = len(t.Reviewers)-len(c.Reviewers), t.Verifier != nil
	case effort.Deep:
		c.VerifyAll = true
	}
	return c
}

// Threads are a pull request's review threads as a round reads them
// (ThreadsOf); the zero value for a change that has none (a local
// branch), which a team without a comments analyzer reviews.
type Threads struct {
	pr       *github.PullRequest
	findings []finding.Finding
	state    finding.ReviewState
	stats    finding.ThreadStats
	replies  []reply
}

// ThreadsOf are pr's threads: those that are findings (threadFs), the
// review state and the counts, and the replies people gave on gh-ocdx's
// open threads, which the reviewers weigh.
func ThreadsOf(pr *github.PullRequest, threadFs []finding.Finding, st finding.ReviewState, stats finding.ThreadStats) Threads {
	return Threads{pr: pr, findings: threadFs, state: st, stats: stats, replies: replies(pr)}
}

// Run runs the crew's reviewers and, when it plays, the comments analyzer
// on th, side by side, and waits for all of them (allSettled): one failing
// role never cancels the others. round names the reservation in the
// token budget. IDs and sources are set by gh-ocdx, never taken from a
// model.
func (t *Team) Run(ctx context.Context, round string, c Crew, rc *change.Context, re *rereview.Delta, th Threads) (*Reviews, error) {
	n := len(c.Reviewers)
	out := &Reviews{Roles: make([]Status, n, n+1)}
	results := make([]*finding.ReviewerResult, n)
	var tools, aTools []llm.Tool
	if t.ReviewerTools != nil {
		tools = t.ReviewerTools(rc.Subject.HeadOID)
	}
	// The round starts only when every role's first call fits the token
	// budget, reserved in the configured order, the analyzer last
	// (docs/architecture.md, Budget and costs): no role is refused once
	// the others are at work.
	agents, err := t.reviewerAgents(c.Reviewers, rc, re, th.replies, tools)
	if err != nil {
		return nil, err
	}
	all := agents
	var aAgent *llm.Agent
	threadFs := th.findings
	// A change without threads (a local branch) has nothing to analyze,
	// whatever the crew says.
	if c.Analyzer && th.pr != nil {
		aTask, aBreaks, err := analyzerTask(th.pr, threadFs, th.state, th.stats, th.pr.ThreadsTruncated)
		if err != nil {
			return nil, err
		}
		if t.AnalyzerTools != nil {
			aTools = t.AnalyzerTools(rc.Subject.HeadOID)
		}
		aAgent = t.Agent(t.Analyzer, analyzerSystem, aTask, aTools, aBreaks...)
		all = append(slices.Clone(agents), aAgent)
		out.Roles = out.Roles[:n+1]
	}
	if t.Budget != nil {
		if err := t.Budget.Reserve(round, all...); err != nil {
			return nil, err
		}
	}
	var analyzer finding.CommentsAnalyzerResult
	var wg sync.WaitGroup
	if aAgent != nil {
		wg.Go(func() {
			out.Roles[n] = t.RunRole(ctx, t.Analyzer, aAgent, &analyzer)
			if out.Roles[n].OK {
				out.Analyzer = &analyzer
				out.Roles[n].Findings, out.Roles[n].Report = len(threadFs), analyzer.FullReport
			}
		})
	}
	t.RunReviewers(ctx, c.Reviewers, agents, out.Roles[:n], results)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out.Findings = AgentFindings(c.Reviewers, results)
	if re != nil {
		out.Verdicts = consensus.VerdictsOf(re.Previous, results)
	}
	out.Findings = append(out.Findings, mergeThreads(threadFs, out.Analyzer)...)
	return out, nil
}

// ReviewerAgents are the agents of reviewers on rc, in configured order,
// as a round gives them (eval's reviews alone).
func (t *Team) ReviewerAgents(reviewers []Role, rc *change.Context, tools []llm.Tool) ([]*llm.Agent, error) {
	return t.reviewerAgents(reviewers, rc, nil, nil, tools)
}

func (t *Team) reviewerAgents(reviewers []Role, rc *change.Context, re *rereview.Delta, rs []reply, tools []llm.Tool) ([]*llm.Agent, error) {
	agents := make([]*llm.Agent, len(reviewers))
	for i, r := range reviewers {
		task, breaks, err := reviewerTask(r.Name, rc, re, rs)
		if err != nil {
			return nil, err
		}
		agents[i] = t.Agent(r, reviewerSystem, task, tools, breaks...)
	}
	return agents, nil
}

// RunReviewers runs the reviewers' agents side by side and waits for all
// of them: a reviewer's status goes to roles[i], its result, when it
// answered, to results[i].
func (t *Team) RunReviewers(ctx context.Context, reviewers []Role, agents []*llm.Agent, roles []Status, results []*finding.ReviewerResult) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for i, r := range reviewers {
		wg.Go(func() {
			var res finding.ReviewerResult
			roles[i] = t.RunRole(ctx, r, agents[i], &res)
			if roles[i].OK {
				results[i] = &res
				roles[i].Conclusion, roles[i].Findings, roles[i].Report = res.Conclusion, len(res.Findings), res.FullReport
			}
		})
	}
}

// AgentFindings are the reviewers' findings with gh-ocdx's IDs and sources,
// never a model's (docs/architecture.md, Finding IDs), redacted once.
func AgentFindings(reviewers []Role, results []*finding.ReviewerResult) []finding.Finding {
	var out []finding.Finding
	now := time.Now().UTC().Format(time.RFC3339)
	for i, res := range results {
		if res == nil {
			continue
		}
		for _, f := range res.Findings {
			f.ID = f.ComputeID()
			// Redacted once, here: the report, the state file, the fix
			// payload and the summary all show this text.
			f.Title, f.Description, f.Suggestion = redact.ForComment(f.Title), redact.ForComment(f.Description), redact.ForComment(f.Suggestion)
			f.Source = &finding.Source{Type: "agent", Name: reviewers[i].Name, Timestamp: now}
			f.Reviewers, f.Agreement = []string{reviewers[i].Model}, "" // Distinct fills both
			f.Status, f.Evidence = "", ""                               // only the verifier refutes
			out = append(out, f)
		}
	}
	return out
}

// mergeThreads takes the analyzer's wording for the threads gh-ocdx found;
// which threads exist, their IDs, priorities and places stay gh-ocdx's.
func mergeThreads(threadFs []finding.Finding, a *finding.CommentsAnalyzerResult) []finding.Finding {
	out := make([]finding.Finding, len(threadFs))
	copy(out, threadFs)
	if a == nil {
		return out
	}
	for i := range out {
		for _, p := range a.PendingIssues {
			if p.ID != out[i].ID {
				continue
			}
			if d := strings.TrimSpace(p.Description); d != "" {
				out[i].Description = redact.ForComment(text.Excerpt(d, consensus.MaxThreadExcerpt))
			}
			out[i].Suggestion = redact.ForComment(p.Suggestion)
			break
		}
	}
	return out
}

// Agent is role r's agent on task; breaks mark where the task's stable
// parts end (reviewerTask).
func (t *Team) Agent(r Role, system, task string, tools []llm.Tool, breaks ...int) *llm.Agent {
	return &llm.Agent{Role: r.Name, Model: r.LLM, System: system, Task: task, Breaks: breaks, Tools: tools, MaxIters: t.MaxIters}
}

// RunRole runs role r's agent and reports on stderr how it went.
func (t *Team) RunRole(ctx context.Context, r Role, a *llm.Agent, out any) Status {
	st := Status{Role: r.Name, Model: r.Model}
	start := time.Now()
	res, err := a.Run(ctx, out)
	st.Elapsed, st.Usage = time.Since(start).Round(time.Millisecond), res.Usage
	if err != nil {
		st.Error, st.Err = err.Error(), err
		if ctx.Err() != nil {
			return st // cancelled: the run says so once, not each role
		}
		t.progress("X %s (%s): failed after %s: %s", r.Name, r.Model, st.Elapsed, t.sameFailure(r, text.FirstLine(st.Error)))
		return st
	}
	st.OK = true
	switch v := out.(type) {
	case *finding.ReviewerResult:
		t.progress("%s (%s): %s, %s, %s, %s tokens", r.Name, r.Model, v.Conclusion, text.Plural(len(v.Findings), "finding"), st.Elapsed, st.Usage)
	default:
		t.progress("%s (%s): done, %s, %s tokens", r.Name, r.Model, st.Elapsed, st.Usage)
	}
	return st
}

// sameFailure is what a failed role's line says of its error: the error,
// without the role and model the line names already; or, when another role
// said the same, that it is the same (three reviewers behind one
// unreachable server say the error once).
func (t *Team) sameFailure(r Role, msg string) string {
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, r.Name+": "), r.Model+": ")
	key := strings.ReplaceAll(msg, r.Model, "MODEL")
	t.failMu.Lock()
	defer t.failMu.Unlock()
	if first, ok := t.failures[key]; ok {
		return "the same error as " + first
	}
	if t.failures == nil {
		t.failures = map[string]string{}
	}
	t.failures[key] = r.Name
	return msg
}

func (t *Team) progress(format string, a ...any) {
	if t.Progress != nil {
		t.Progress(format, a...)
	}
}
