package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/internal/tokens"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/localchange"
	"github.com/ocdx/gh-ocdx/loop"
	"github.com/ocdx/gh-ocdx/repofs"
	"github.com/ocdx/gh-ocdx/roles"
	"github.com/ocdx/gh-ocdx/secretscan"
	"github.com/ocdx/gh-ocdx/verifier"
)

// Review is one model's review of one case, alone, as the cache keeps it.
type Review struct {
	Model    string            `json:"model"`
	PR       int               `json:"pr"`
	Findings []finding.Finding `json:"findings"`
	Usage    tokens.Usage      `json:"usage"`
}

// Verdicts are the verifier's answers on one model's findings on a case:
// the IDs it was sent and those it refuted.
type Verdicts struct {
	Verifier string       `json:"verifier"`
	Model    string       `json:"model"`
	PR       int          `json:"pr"`
	Sent     []string     `json:"sent"`
	Refuted  []string     `json:"refuted"`
	Usage    tokens.Usage `json:"usage"`
}

// Results are the answers a run gathered, from the models or the cache:
// everything the report is computed from, without another call.
type Results struct {
	Reviewers []string `json:"reviewers"`
	Verifier  string   `json:"verifier,omitempty"`
	Cases     []Case   `json:"cases"`
	// Tiers are the tier auto chose for each case, by pull request.
	Tiers    map[int]effort.Choice `json:"tiers"`
	Reviews  map[string]*Review    `json:"-"` // by pair(model, pr)
	Verified map[string]*Verdicts  `json:"-"`
	// Calls are the model calls this run made; Cached the answers it read
	// from the cache instead; Failed the calls that failed (not cached:
	// the next run asks again).
	Calls  int `json:"calls"`
	Cached int `json:"cached"`
	Failed int `json:"failed"`

	mu sync.Mutex // a case's reviewers run side by side
}

// record runs f with res locked.
func (res *Results) record(f func()) {
	res.mu.Lock()
	defer res.mu.Unlock()
	f()
}

func pair(model string, pr int) string { return model + "\x00" + strconv.Itoa(pr) }

// RunOptions are the inputs of Run.
type RunOptions struct {
	Git       *git.Repo
	Cases     []Case
	Reviewers []roles.Role
	Verifier  *roles.Role // nil: none configured
	Cache     *Cache
	Budget    *llm.Budget // nil: none
	// Cutoffs are the models' training cutoffs: a case merged before a
	// model's is not reviewed by it (it would count for no mix with it).
	Cutoffs  map[string]time.Time
	MaxIters int
	Progress io.Writer
}

// Run has each reviewer review each case once, alone, and the verifier
// check each reviewer's findings, asking only what the cache does not
// answer. Each answer is cached as it comes. A cancelled run or one the
// token budget stops returns what it has with the error.
func Run(ctx context.Context, o RunOptions) (*Results, error) {
	res := &Results{Cases: o.Cases, Tiers: map[int]effort.Choice{}, Reviews: map[string]*Review{}, Verified: map[string]*Verdicts{}}
	for _, r := range o.Reviewers {
		res.Reviewers = append(res.Reviewers, r.Model)
	}
	if o.Verifier != nil {
		res.Verifier = o.Verifier.Model
	}
	for i, c := range o.Cases {
		kind := "bug"
		if len(c.Buggy) == 0 {
			kind = "clean"
		}
		progress(o.Progress, "case %d/%d: #%d (%s, %s) %s", i+1, len(o.Cases), c.PR, kind, text.ShortOID(c.Head), text.OneLine(c.Title))
		pc, err := prepare(ctx, o.Git, c, o.Progress)
		if err != nil {
			return res, fmt.Errorf("case #%d: %w", c.PR, err)
		}
		res.Tiers[c.PR] = pc.tier
		// The reviewers of a case side by side, as a round runs them.
		errs := make([]error, len(o.Reviewers))
		var wg sync.WaitGroup
		for i, r := range o.Reviewers {
			wg.Go(func() { errs[i] = reviewCase(ctx, o, res, pc, r) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return res, err
		}
	}
	return res, nil
}

// prepared is a case as the models are given it: the pull request's diff
// at its own base, the files of its head and nothing else, the
// repository policy of its base.
type prepared struct {
	c      Case
	ch     AloneChange
	policy *config.Policy
	tools  []llm.Tool
	tier   effort.Choice
}

func prepare(ctx context.Context, g *git.Repo, c Case, w io.Writer) (*prepared, error) {
	if !reFullID.MatchString(c.Base) || !reFullID.MatchString(c.Head) || !g.HasCommits(ctx, c.Base, c.Head) {
		return nil, fmt.Errorf("base %q or head %q is no commit of this repository: give full commit IDs", c.Base, c.Head)
	}
	d, err := g.Diff(ctx, c.Base, c.Head)
	if err != nil {
		return nil, err
	}
	stats, err := g.Numstat(ctx, c.Base, c.Head)
	if err != nil {
		return nil, err
	}
	author, err := g.Run(ctx, "show", "-s", "--format=%an", c.Head)
	if err != nil {
		return nil, err
	}
	ch := localchange.Change{Branch: fmt.Sprintf("pull-request-%d", c.PR), Base: c.Base, MergeBase: c.Base, Head: c.Head, Tree: c.Head, Diff: d,
		Author: strings.TrimSpace(author)}
	for _, f := range stats {
		ch.Files = append(ch.Files, github.ChangedFile{Path: f.Path, Additions: f.Additions, Deletions: f.Deletions})
	}
	// The policy of the base as it was; one that no longer parses is none.
	policy, _, err := ch.Policy(ctx, g)
	if err != nil {
		progress(w, "  the base's repository policy is not usable (%s): reviewed with the defaults", text.FirstLine(err.Error()))
		policy = config.DefaultPolicy()
	}
	scan, err := secretscan.Diff(bytes.NewReader(d), time.Now().UTC().Format(time.RFC3339), nil)
	if err != nil {
		return nil, err
	}
	// The models' tools read the head's tree from git's objects by path:
	// no later commit, no other object, no work tree.
	tools := append(change.RepoTools(repofs.NewTree(ctx, g, c.Head)), change.DiffTool(ch.FilesPage))
	return &prepared{c: c, policy: policy, tools: tools,
		ch:   AloneChange{Change: ch, Title: c.Title, Body: fmt.Sprintf("Pull request #%d.", c.PR)},
		tier: effort.Decide(effort.Auto, loop.EffortFacts(d, policy, len(scan.Findings)))}, nil
}

// aloneName is every reviewer's name in its prompt: the same prompt, and
// so the same cached answer, whatever order the models are configured in.
const aloneName = "reviewer"

// reviewCase gets reviewer r's review of the case, then the verifier's
// verdicts on its findings, from the cache or from the models.
func reviewCase(ctx context.Context, o RunOptions, res *Results, pc *prepared, r roles.Role) error {
	if t, ok := o.Cutoffs[r.Model]; ok && !pc.c.Merged.After(t) {
		progress(o.Progress, "  %s: merged before the model's cutoff (%s), not reviewed", r.Model, t.Format(time.DateOnly))
		return nil
	}
	r.Name = aloneName
	a, err := NewReviewerAlone(r, pc.ch, pc.policy, pc.tools, o.MaxIters, o.Progress)
	if err != nil {
		return err
	}
	rev := &Review{}
	ok, cached, err := answer(o, res, key("review", r.Model, pc.c.Base, pc.c.Head, a.Fingerprint()), rev, func() (bool, error) {
		st, fs, err := a.Review(ctx, o.Budget, fmt.Sprintf("case #%d, %s", pc.c.PR, r.Model))
		*rev = Review{Model: r.Model, PR: pc.c.PR, Findings: fs, Usage: st.Usage}
		return st.OK, err
	})
	if err != nil || !ok {
		return err // a failed review is not cached: asked again next run; the case does not count for the model
	}
	if cached {
		progress(o.Progress, "  %s: cached, %s", r.Model, text.Plural(len(rev.Findings), "finding"))
	}
	rev.Model, rev.PR = r.Model, pc.c.PR
	res.record(func() { res.Reviews[pair(r.Model, pc.c.PR)] = rev })
	if o.Verifier == nil {
		return nil
	}
	return verifyCase(ctx, o, res, pc, rev)
}

// verifyCase gets the verifier's verdicts on rev's findings.
func verifyCase(ctx context.Context, o RunOptions, res *Results, pc *prepared, rev *Review) error {
	v := *o.Verifier
	a, err := NewVerifierAlone(v, pc.ch, rev.Findings, pc.tools, o.MaxIters, o.Progress)
	if err != nil {
		return err
	}
	vd := &Verdicts{Verifier: v.Model, Model: rev.Model, PR: pc.c.PR, Sent: []string{}, Refuted: []string{}}
	if a == nil { // nothing it may judge: no call
		res.record(func() { res.Verified[pair(rev.Model, pc.c.PR)] = vd })
		return nil
	}
	ok, _, err := answer(o, res, key("verify", v.Model, rev.Model, pc.c.Base, pc.c.Head, a.Fingerprint()), vd, func() (bool, error) {
		st, refuted, err := a.Verify(ctx, o.Budget, fmt.Sprintf("case #%d, the verifier on %s", pc.c.PR, rev.Model))
		for _, f := range rev.Findings {
			if verifier.Checkable(f) {
				vd.Sent = append(vd.Sent, f.ID)
			}
		}
		vd.Refuted, vd.Usage = refuted, st.Usage
		return st.OK, err
	})
	if err != nil || !ok {
		return err // a failed verifier is not cached: the findings stand, as when a round's verifier fails
	}
	res.record(func() { res.Verified[pair(rev.Model, pc.c.PR)] = vd })
	return nil
}

// answer reads the answer cached under k into v, or makes the call, which
// fills v, and caches v when the call succeeded: ok false for a call that
// failed (not cached, so asked again by the next run).
func answer[T any](o RunOptions, res *Results, k string, v *T, call func() (ok bool, err error)) (ok, cached bool, err error) {
	if found, err := o.Cache.get(k, v); err != nil || found {
		if found {
			res.record(func() { res.Cached++ })
		}
		return found, found, err
	}
	ok, err = call()
	if err != nil {
		return false, false, err
	}
	res.record(func() {
		res.Calls++
		if !ok {
			res.Failed++
		}
	})
	if !ok {
		return false, false, nil
	}
	return true, false, o.Cache.put(k, v)
}

func progress(w io.Writer, format string, a ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", a...)
	}
}
