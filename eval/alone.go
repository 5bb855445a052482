package eval

// One role on its own (docs/architecture.md, Eval): a
// reviewer given the task a round of review gives it, or the verifier
// given one reviewer's findings; no consensus, no state, nothing posted.
// Its prompt is known before it runs, so that a caller can name the call
// by what it would send and skip it when the answer is already known.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/localchange"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/verifier"
)

// Alone is one role's call on a change, prepared: its prompt is built,
// nothing is sent until Review or Verify.
type Alone struct {
	team  *roles.Team
	role  roles.Role
	agent *llm.Agent
	sent  []finding.Finding // the verifier's: the findings it is asked about
}

// AloneChange is a change as Alone gives it to a role: the reviewers'
// change with the title and description a pull request had.
type AloneChange struct {
	localchange.Change
	Title, Body string
}

// Subject is the change with the pull request's title and description,
// and no number or URL: it is reviewed as it was, offline.
func (ch AloneChange) Subject() change.Subject {
	s := ch.Change.Subject()
	s.Title, s.Body = ch.Title, ch.Body
	return s
}

// NewReviewerAlone prepares reviewer r's review of ch with tools, as a
// round gives it (the same task, system prompt and iteration cap).
func NewReviewerAlone(r roles.Role, ch AloneChange, policy *config.Policy, tools []llm.Tool, maxIters int, progress io.Writer) (*Alone, error) {
	team := aloneTeam(maxIters, progress)
	agents, err := team.ReviewerAgents([]roles.Role{r}, change.ContextOf(ch.Subject(), ch.Diff, true, policy), tools)
	if err != nil {
		return nil, err
	}
	return &Alone{team: team, role: r, agent: agents[0]}, nil
}

// aloneTeam runs one role at a time, its failures said on progress.
func aloneTeam(maxIters int, progress io.Writer) *roles.Team {
	return &roles.Team{MaxIters: maxIters, Progress: func(format string, a ...any) {
		if progress != nil {
			fmt.Fprintf(progress, format+"\n", a...)
		}
	}}
}

// NewVerifierAlone prepares verifier v's check of fs, the findings one
// reviewer raised on ch: those it may judge (verifier.Checkable) are sent.
// It is nil when none is.
func NewVerifierAlone(v roles.Role, ch AloneChange, fs []finding.Finding, tools []llm.Tool, maxIters int, progress io.Writer) (*Alone, error) {
	var send []finding.Finding
	for _, f := range fs {
		if verifier.Checkable(f) {
			send = append(send, f)
		}
	}
	if len(send) == 0 {
		return nil, nil
	}
	task, err := verifier.Task(ch.Subject(), send)
	if err != nil {
		return nil, err
	}
	team := aloneTeam(maxIters, progress)
	return &Alone{team: team, role: v, agent: team.Agent(v, verifier.System, task, tools), sent: send}, nil
}

// Fingerprint names what the call would send: its model, system prompt,
// task and tools' names. Two calls with one fingerprint ask the same.
func (a *Alone) Fingerprint() string {
	names := make([]string, len(a.agent.Tools))
	for i, t := range a.agent.Tools {
		names[i] = t.Name
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{a.role.Model, a.agent.System, a.agent.Task, strings.Join(names, ",")}, "\x00")))
	return hex.EncodeToString(sum[:])
}

// Prompt is the task the call sends, for tests and the honesty checks.
func (a *Alone) Prompt() string { return a.agent.Task }

// reserve holds the worst case of the call's answer in budget first (nil:
// no budget), as a round does (docs/architecture.md, Budget and costs).
func (a *Alone) reserve(budget *llm.Budget, what string) error {
	if budget == nil {
		return nil
	}
	return budget.Reserve(what, a.agent)
}

// Review runs the reviewer: its status (usage, error) and its findings,
// with gh-ocdx's IDs and sources. A call the budget refuses is an error
// (llm.ErrBudget); a reviewer that fails is a status with OK false.
func (a *Alone) Review(ctx context.Context, budget *llm.Budget, what string) (roles.Status, []finding.Finding, error) {
	if err := a.reserve(budget, what); err != nil {
		return roles.Status{}, nil, err
	}
	var res finding.ReviewerResult
	st := a.team.RunRole(ctx, a.role, a.agent, &res)
	if !st.OK {
		return st, nil, a.stop(ctx, st.Err)
	}
	st.Conclusion, st.Findings = res.Conclusion, len(res.Findings)
	return st, roles.AgentFindings([]roles.Role{a.role}, []*finding.ReviewerResult{&res}), nil
}

// Verify runs the verifier: its status and the IDs it refuted of those it
// was sent (an ID both confirmed and refuted is not refuted).
func (a *Alone) Verify(ctx context.Context, budget *llm.Budget, what string) (roles.Status, []string, error) {
	if err := a.reserve(budget, what); err != nil {
		return roles.Status{}, nil, err
	}
	var res finding.VerifierResult
	st := a.team.RunRole(ctx, a.role, a.agent, &res)
	if !st.OK {
		return st, nil, a.stop(ctx, st.Err)
	}
	ids := make([]string, len(a.sent))
	for i, f := range a.sent {
		ids[i] = f.ID
	}
	_, out := verifier.SplitRefuted(verifier.ApplyVerdicts(a.sent, verifier.Verdicts(res.Verdicts, ids)))
	refuted := []string{}
	for _, f := range out {
		refuted = append(refuted, f.ID)
	}
	return st, refuted, nil
}

// stop is the error a failed call ends its caller's run with: the
// configuration's (the provider refused the key, has no such model, or the
// quota is spent: every call would fail the same), the budget's, or the
// cancel; nil for a failure of this call alone (Status says it).
func (a *Alone) stop(ctx context.Context, err error) error {
	if ce := llm.AsConfigError(a.role.Key, err); ce != nil && a.role.Key != "" {
		return ce
	}
	if errors.Is(err, llm.ErrBudget) {
		return err
	}
	return ctx.Err()
}
