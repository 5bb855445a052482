package cmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ocdx/gh-ocdx/analyzer"
	"github.com/ocdx/gh-ocdx/checkrun"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/fix"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// maxAnnotatedRuns bounds the check runs of a head whose annotations a
// round reads.
const maxAnnotatedRuns = 50

// codeScanningApp is the app whose check runs show code scanning's
// alerts on a PR as annotations.
const codeScanningApp = "github-advanced-security"

// evidenceSource is a review's loop.EvidenceSource (docs/architecture.md,
// Evidence): the result files read before the review (for the head they
// were read at), what GitHub holds for the PR's head (its check runs'
// annotations, its code-scanning alerts), and the configured analyzers'
// results on the checkout at the standard and deep tiers. What it could
// not read is said once a run, and the review goes on.
type evidenceSource struct {
	d         *cmdutil.Deps
	files     []evidence.Set
	filesHead string // the head the run began at, which the files describe; "" for any (the working tree)
	// gh, when set, is where the PR's head's evidence is read: PR number
	// of repo.
	gh     *github.Client
	repo   github.Repo
	number int
	// runner runs the analyzers; nil when none are configured or
	// approved. never, when set, says why they never run here (a fork).
	runner *analyzer.Runner
	never  string
	git    *git.Repo
	local  bool // the working tree is the change (gh ocdx review), not a commit
	said   map[string]bool
}

// gather is the evidence about head for a round at tier.
func (e *evidenceSource) gather(ctx context.Context, head string, tier effort.Tier) []evidence.Set {
	var sets []evidence.Set
	if e.filesHead == "" || e.filesHead == head {
		sets = append(sets, e.files...)
	}
	// A head gh-ocdx pushed moments ago has no CI results yet: GitHub's
	// evidence is read for the head the run began at.
	if e.gh != nil && head == e.filesHead {
		alerts, read := e.codeScanning(ctx)
		sets = append(sets, alerts...)
		sets = append(sets, e.checkAnnotations(ctx, head, read)...)
	}
	return append(sets, e.analyzed(ctx, head, tier)...)
}

// once says line the first time key comes up in the run.
func (e *evidenceSource) once(key string, warn bool, format string, a ...any) {
	if e.said == nil {
		e.said = map[string]bool{}
	}
	if e.said[key] {
		return
	}
	e.said[key] = true
	if warn {
		e.d.Warn(format, a...)
	} else {
		e.d.Info(format, a...)
	}
}

// skipped says, once, that what was not read and why: GitHub's refusal
// with the permission a workflow's token needs, or the failure.
func (e *evidenceSource) skipped(ctx context.Context, what, needs string, err error) {
	if ctx.Err() != nil {
		return
	}
	var refused *github.RefusedError
	var checks *github.ChecksRefusedError
	switch {
	case errors.As(err, &refused):
		e.once(what, true, "%s were not read: GitHub answered %d (%s)%s; the review goes on without them", what, refused.Status, text.OneLine(refused.Message), needs)
	case errors.As(err, &checks):
		e.once(what, true, "%s were not read: GitHub answered %d (%s)%s; the review goes on without them", what, checks.Status, text.OneLine(checks.Message), needs)
	default:
		e.once(what, true, "%s were not read: %v; the review goes on without them", what, err)
	}
}

// checkAnnotations are the annotations of head's check runs, a set for
// each run that has some; gh-ocdx's own check run is not read (its
// annotations are its findings), nor code scanning's when its alerts were
// (alertsRead: they are the same results).
func (e *evidenceSource) checkAnnotations(ctx context.Context, head string, alertsRead bool) []evidence.Set {
	const what, needs = "the check runs' annotations", " (a workflow's token needs \"checks: read\")"
	runs, err := e.gh.CommitCheckRuns(ctx, e.repo, head)
	if err != nil {
		e.skipped(ctx, what, needs, err)
		return nil
	}
	var sets []evidence.Set
	read := 0
	for _, r := range runs {
		if r.Name == checkrun.Name || r.Output.AnnotationsCount == 0 || alertsRead && r.App.Slug == codeScanningApp {
			continue
		}
		if read++; read > maxAnnotatedRuns {
			e.once("runs "+head, false, "the annotations of %s of %s were read, not the rest", text.Plural(maxAnnotatedRuns, "check run"), text.ShortOID(head))
			break
		}
		as, err := e.gh.CheckRunAnnotations(ctx, e.repo, r.ID)
		if err != nil {
			e.skipped(ctx, what, needs, err)
			return sets
		}
		sets = append(sets, annotationSet(r, as))
	}
	return sets
}

// annotationSet is a check run's annotations as results of the tool the
// run is named for: failure an error, notice a note; a title of one word
// is the rule, a longer one opens the message.
func annotationSet(r github.CheckRun, as []github.Annotation) evidence.Set {
	var rs []evidence.Result
	for _, a := range as {
		res := evidence.Result{File: a.Path, Line: a.StartLine, EndLine: a.EndLine, Column: a.StartColumn, Level: a.Level, Message: a.Message}
		switch a.Level {
		case "failure":
			res.Level = evidence.LevelError
		case "notice":
			res.Level = evidence.LevelNote
		}
		if t := strings.TrimSpace(a.Title); t != "" && !strings.ContainsAny(t, " \t") {
			res.Rule = t
		} else if t != "" {
			res.Message = t + ": " + a.Message
		}
		rs = append(rs, res)
	}
	return evidence.Collect(fmt.Sprintf("check run %s (%d)", r.Name, r.ID), r.Name, rs)
}

// codeScanning are the PR's open code-scanning alerts on its head
// (refs/pull/N/head), at their most recent instance there; read reports
// that GitHub listed them.
func (e *evidenceSource) codeScanning(ctx context.Context) (sets []evidence.Set, read bool) {
	ref := fmt.Sprintf("refs/pull/%d/head", e.number)
	alerts, err := e.gh.CodeScanningAlerts(ctx, e.repo, ref)
	if err != nil {
		e.skipped(ctx, "the code-scanning alerts of "+ref, " (code scanning must be enabled, and a workflow's token needs \"security-events: read\")", err)
		return nil, false
	}
	if len(alerts) == 0 {
		return nil, true
	}
	return []evidence.Set{alertSet(ref, alerts)}, true
}

// securitySeverity is the score a code-scanning alert's security severity
// level stands for: the lower bound of its CVSS band.
var securitySeverity = map[string]float64{"critical": 9, "high": 7, "medium": 4, "low": 0.1}

// alertSet is code-scanning alerts as results: the rule's severity is the
// level, its security severity level the score (docs/architecture.md,
// Evidence).
func alertSet(ref string, alerts []github.CodeScanningAlert) evidence.Set {
	var rs []evidence.Result
	for _, a := range alerts {
		in := a.MostRecentInstance
		msg := in.Message.Text
		if strings.TrimSpace(msg) == "" {
			msg = a.Rule.Description
		}
		rs = append(rs, evidence.Result{Tool: a.Tool.Name, File: in.Location.Path, Line: in.Location.StartLine, EndLine: in.Location.EndLine,
			Column: in.Location.StartColumn, Level: a.Rule.Severity, SecuritySeverity: securitySeverity[strings.ToLower(a.Rule.SecuritySeverityLevel)],
			Rule: a.Rule.ID, Message: msg})
	}
	return evidence.Collect("code scanning of "+ref, "code-scanning", rs)
}

// analyzed are the analyzers' results about head: those a fix's
// verification read on its tree, else a run on the checkout at the
// standard and deep tiers when the checkout holds head. Never for a fork.
func (e *evidenceSource) analyzed(ctx context.Context, head string, tier effort.Tier) []evidence.Set {
	if e.runner == nil {
		return nil
	}
	if e.never != "" {
		e.once("never", false, "analyzers were not run: %s", e.never)
		return nil
	}
	tree := ""
	if !e.local {
		tree, _ = e.git.Run(ctx, "rev-parse", "--verify", "--quiet", head+"^{tree}")
	}
	if rep, ok := e.runner.Cached(tree); ok {
		return e.report(rep)
	}
	if tier == effort.Quick {
		e.once("quick "+head, false, "analyzers were not run on %s: the review is at the quick tier (they run at standard and deep)", e.what(head))
		return nil
	}
	if !e.local {
		if at, err := e.git.Head(ctx); err != nil || at != head {
			e.once("moved "+head, true, "analyzers were not run on %s: the checkout is at %s, not there (check the PR out: gh pr checkout %d)", text.ShortOID(head), text.ShortOID(at), e.number)
			return nil
		}
	}
	return e.report(e.runner.Run(ctx, tree))
}

func (e *evidenceSource) what(head string) string {
	if e.local {
		return "the working tree"
	}
	return text.ShortOID(head)
}

// report is an analyzers' report's sets, its problems said once each.
func (e *evidenceSource) report(rep analyzer.Report) []evidence.Set {
	for _, p := range rep.Problems {
		e.once(p, true, "%s", p)
	}
	return rep.Sets
}

// analyzersOf is the runner of the analyzers in effect (the base branch's,
// else the configuration's) in the checkout at dir; nil when there are none.
func analyzersOf(d *cmdutil.Deps, cfg *config.Config, dir string) *analyzer.Runner {
	if len(cfg.Analyzers) == 0 {
		return nil
	}
	return &analyzer.Runner{Dir: dir, Analyzers: cfg.Analyzers, Progress: d.ProgressOut()}
}

// key names what a local review's evidence depends on besides the change
// (the results the files gave, the analyzers that run), "" for none: a
// review with other evidence is a new review, not the last one repeated.
func (e *evidenceSource) key() string {
	if len(e.files) == 0 && e.runner == nil {
		return ""
	}
	var analyzers []config.Analyzer
	if e.runner != nil {
		analyzers = e.runner.Analyzers
	}
	var results [][]evidence.Result
	for _, s := range e.files {
		results = append(results, s.Results)
	}
	b, _ := json.Marshal(struct {
		Results   [][]evidence.Result
		Analyzers []config.Analyzer
	}{results, analyzers})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// fixAnalyzers are the analyzers a fix's verification runs again
// (fix.Options.Analyzers); nil when none run here.
func (e *evidenceSource) fixAnalyzers() fix.Analyzers {
	if e.runner == nil || e.never != "" {
		return nil
	}
	return e.runner
}
