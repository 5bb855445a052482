package roles

import (
	"context"
	"slices"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/verifier"
)

// Verified is what the verifier's turn in a round came to.
type Verified struct {
	Status  *verifier.Status  // nil: no verifier played
	Kept    []finding.Finding // the findings as they stand after it
	Refuted []finding.Finding // those it showed wrong, with its evidence
	Ran     bool              // its agent ran (Status.Usage is spent)
}

// Verify is the verifier's turn on the findings fs of a round crew c
// played (docs/architecture.md, The verifier): those it may check are sent
// to it, but for the ones people restored; the refuted ones are taken out.
// A verifier that fails, or whose answer does not fit the token budget,
// changes nothing, and its status says so: the reviews are kept.
func (t *Team) Verify(ctx context.Context, s change.Subject, c Crew, fs []finding.Finding, restored []string) (Verified, error) {
	out := Verified{Kept: fs}
	v := t.Verifier
	if v == nil || !c.Verifier {
		return out, nil
	}
	st := &verifier.Status{Model: v.Model, Sent: []string{}, Refuted: []string{}}
	out.Status = st
	var send []finding.Finding
	support := len(c.Reviewers)
	if c.VerifyAll {
		support = 1 // deep: every finding the verifier may check
	}
	for _, f := range verifier.Verifiable(fs, support) {
		if slices.Contains(restored, f.ID) {
			st.Restored = append(st.Restored, f.ID)
			continue
		}
		send = append(send, f)
		st.Sent = append(st.Sent, f.ID)
	}
	if len(send) == 0 {
		st.OK = true // nothing to ask: no model call
		return out, nil
	}
	task, err := verifier.Task(s, send)
	if err != nil {
		return out, err
	}
	var tools []llm.Tool
	if t.ReviewerTools != nil {
		tools = t.ReviewerTools(s.HeadOID)
	}
	// The verifier comes after the round's reviews: when its answer does
	// not fit in the token budget, it does not run and the findings stand,
	// the reviews kept (docs/architecture.md, Budget and costs).
	agent := t.Agent(*v, verifier.System, task, tools)
	if t.Budget != nil {
		if err := t.Budget.Reserve("the verifier", agent); err != nil {
			st.Error = err.Error()
			t.progress("the verifier did not run (%v): the %s it was to check stand as the reviewers raised them", err, text.Plural(len(send), "finding"))
			return out, nil
		}
	}
	var res finding.VerifierResult
	rs := t.RunRole(ctx, *v, agent, &res)
	st.OK, st.Error, st.Usage, st.Elapsed = rs.OK, rs.Error, rs.Usage, rs.Elapsed
	out.Ran = true
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if !rs.OK {
		t.progress("the verifier failed: the %s sent to it stand as the reviewers raised them", text.Plural(len(send), "finding"))
		return out, nil
	}
	out.Kept, out.Refuted = verifier.SplitRefuted(verifier.ApplyVerdicts(fs, verifier.Verdicts(res.Verdicts, st.Sent)))
	for _, f := range out.Refuted {
		st.Refuted = append(st.Refuted, f.ID)
	}
	t.progress("verifier (%s): %d of %s refuted", v.Model, len(out.Refuted), text.Plural(len(send), "finding"))
	return out, nil
}
