package posts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// The ledger is what gh-ocdx knows of a PR's findings, hidden at the end of
// every report it posts, so that any machine can take up the PR where the
// last one left it (docs/architecture.md, The ledger). It holds IDs and
// statuses and, for the findings of the review the next one builds on,
// where each is and its title: what the report shows of them anyway.

// ledgerVersion is the version of the ledger gh-ocdx writes. A reader keeps
// what it understands of any version: the entries of known shape, an
// unknown status read as open.
const ledgerVersion = 3

// maxLedger bounds the ledger block in a comment: half of what GitHub
// takes in one, the report keeping the rest.
const maxLedger = 32 << 10

// Ledger is the state of a PR's findings after one post.
type Ledger struct {
	V     int    `json:"v,omitempty"` // ledgerVersion when written; 0 for a first-version ledger
	Run   string `json:"run"`
	Kind  string `json:"kind,omitempty"` // the run's verb: review-loop (""), fix, review-pr
	Round int    `json:"round"`
	Head  string `json:"head"`
	// Reviewed is the newest head a review read, at least one reviewer
	// answering: the basis of the next review's increment ("" when none
	// did). A first-version ledger has none; its Head stands for it.
	Reviewed string `json:"reviewed,omitempty"`
	// Converged says the round's review converged on Head: a run on that
	// head has nothing new to review, on any machine.
	Converged bool `json:"converged,omitempty"`
	// Basis is the head of the review a re-review builds on (a round at
	// least one reviewer answered): the entries located (Where) are that
	// review's code findings. "" when the ledger knows none: a fresh
	// machine then reviews in full.
	Basis string `json:"basis,omitempty"`
	// Sampled is, when the basis review or one it built on was given a cut
	// diff, the head before which coverage was sampled (diff.Coverage's
	// SampledBefore): every review built on it says so.
	Sampled  string        `json:"sampled,omitempty"`
	Findings []LedgerEntry `json:"findings"` // oldest first
	// Dropped counts the closed entries (fixed, resolved, dismissed,
	// refuted) left out, oldest first, to keep the block within maxLedger;
	// the block says so in words too.
	Dropped int `json:"dropped,omitempty"`
	// Tokens are what each model spent in the run's rounds so far (v3):
	// gh-ocdx's own figures, kept so that outcomes can be counted per
	// model across PRs. They decide nothing.
	Tokens []ModelTokens `json:"tokens,omitempty"`
}

// ModelTokens is one model's token count in a ledger.
type ModelTokens struct {
	Model  string `json:"model"`
	Input  int64  `json:"in"`
	Output int64  `json:"out"`
}

// maxLedgerModels bounds the models of a ledger's Tokens and of an
// entry's reviewers; maxLedgerReason caps a dismissal's reason, in bytes.
const (
	maxLedgerModels = 16
	maxLedgerReason = 200
)

// LedgerEntry is one finding's status; no status is open.
type LedgerEntry struct {
	ID     string         `json:"id"`
	Status finding.Status `json:"status,omitempty"`
	Sha    string         `json:"sha,omitempty"` // the fix commit, for fixed
	// Agreement is how many of the reviewers that answered raised it
	// ("2/3"), when reviewers did.
	Agreement string `json:"agreement,omitempty"`
	Where
	// Restored says someone with write permission overruled the verifier
	// on it (/ocdx restore): it is not sent to the verifier again, even
	// once the command is past the comments gh-ocdx reads.
	Restored bool `json:"restored,omitempty"`
	// Reviewers are the reviewers that raised it, by model (v3): a fresh
	// machine then knows a finding two reviewers raised is no lone one,
	// and sends it to the verifier no more than the machine before did.
	Reviewers []string `json:"by,omitempty"`
	// Tools are the repository's tools whose results it is
	// (docs/architecture.md, Evidence): a fresh machine names them as the
	// one before did.
	Tools []string `json:"tools,omitempty"`
	// At names gh-ocdx's report that lists the finding, by its run and
	// round ("RUN/N", v3): its description is read back from there, or
	// from the thread gh-ocdx opened for it (docs/architecture.md, The
	// ledger).
	At string `json:"at,omitempty"`
	// DismissedBy and Reason say who dismissed it and why, when a command
	// said so (v3); the reason is one line of a person's text, capped.
	DismissedBy string `json:"dby,omitempty"`
	Reason      string `json:"why,omitempty"`
	// ConcededTo is, for a disputed finding, who wrote the reply gh-ocdx
	// conceded it to (Concession.To): learn weighs the concession by their
	// permission, as a dismissal by its author's.
	ConcededTo string `json:"cto,omitempty"`
}

// Where locates a finding of the basis review: its priority, file, line
// (0: none) and title, capped (MaxLedgerTitle). Model-written, so as
// hostile as the PR; it only ever goes back to the reviewers, who judge
// whether the finding is still present.
type Where struct {
	Priority string `json:"p,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Side     string `json:"side,omitempty"` // "LEFT": Line numbers the base's version
	Title    string `json:"title,omitempty"`
}

// MaxLedgerTitle caps a title in the ledger, in bytes.
const MaxLedgerTitle = 120

const ledgerOpen, ledgerClose = "<!-- ocdx:ledger ", " -->"

var (
	// A finding's ID: gh-ocdx's CAT-hash, or a thread's, by its first
	// comment's database id or, in ledgers before that, its node id.
	reLedgerID  = &lazyRegexp{expr: `^[A-Z]{2,6}-[0-9a-f]{8}$|^THREAD-[0-9]{1,20}$|^THREAD-PRRC_[A-Za-z0-9_-]{1,80}$`}
	reLedgerRun = &lazyRegexp{expr: `^[0-9]{8}T[0-9]{6}-[0-9a-f]{6}$`}
	reLedgerOID = &lazyRegexp{expr: `^[0-9a-f]{7,64}$`}
	reAgreement = &lazyRegexp{expr: `^[1-9][0-9]?/[1-9][0-9]?$`}
	// A model as the configuration names it, PROVIDER/MODEL, and a login.
	reLedgerModel = &lazyRegexp{expr: `^[a-z0-9][a-z0-9_-]{0,29}/[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}$`}
	reLedgerLogin = &lazyRegexp{expr: `^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$`}
	reLedgerAt    = &lazyRegexp{expr: `^[0-9]{8}T[0-9]{6}-[0-9a-f]{6}/[1-9][0-9]?$`}
	// A tool's name as package evidence keeps it.
	reLedgerTool = &lazyRegexp{expr: `^[A-Za-z0-9._+/-][A-Za-z0-9 ._+/-]{0,63}$`}
)

// LedgerReason is a person's reason for a dismissal as a ledger keeps it:
// one line, without control characters, capped (maxLedgerReason).
func LedgerReason(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, text.OneLine(s))
	return text.Clip(strings.TrimSpace(s), maxLedgerReason)
}

// at is the value of LedgerEntry.At for round n of run.
func at(run string, n int) string { return fmt.Sprintf("%s/%d", run, n) }

// splitAt is the run and round an At names, and ok when it has the shape.
func splitAt(at string) (run string, n int, ok bool) {
	if !reLedgerAt.MatchString(at) {
		return "", 0, false
	}
	run, round, _ := strings.Cut(at, "/")
	fmt.Sscan(round, &n)
	return run, n, true
}

// lazyRegexp is compiled on first use: compiled at package initialisation,
// these cost 0.3 ms of every start of the binary, --version included
// (docs/architecture.md, Output).
type lazyRegexp struct {
	once sync.Once
	expr string
	re   *regexp.Regexp
}

func (l *lazyRegexp) MatchString(s string) bool {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re.MatchString(s)
}

// Has reports whether l has an entry for id.
func (l Ledger) Has(id string) bool {
	return slices.ContainsFunc(l.Findings, func(e LedgerEntry) bool { return e.ID == id })
}

// Entry is id's entry in l; the zero entry when l has none.
func (l Ledger) Entry(id string) LedgerEntry {
	if i := slices.IndexFunc(l.Findings, func(e LedgerEntry) bool { return e.ID == id }); i >= 0 {
		return l.Findings[i]
	}
	return LedgerEntry{}
}

// ValidLedgerID reports whether s has the shape of a finding ID.
func ValidLedgerID(s string) bool { return reLedgerID.MatchString(s) }

// Set records status for id (sha for fixed), keeping the entry's place.
// An ID or a commit of another shape is left out: the block must parse.
func (l *Ledger) Set(id string, status finding.Status, sha string) {
	if !reLedgerID.MatchString(id) {
		return
	}
	if status != finding.StatusFixed || !reLedgerOID.MatchString(sha) {
		sha = ""
	}
	for i := range l.Findings {
		if l.Findings[i].ID == id {
			l.Findings[i].Status, l.Findings[i].Sha = status, sha
			if status != finding.StatusDismissed {
				l.Findings[i].DismissedBy, l.Findings[i].Reason = "", ""
			}
			if status != finding.StatusDisputed {
				l.Findings[i].ConcededTo = ""
			}
			return
		}
	}
	l.Findings = append(l.Findings, LedgerEntry{ID: id, Status: status, Sha: sha})
}

// Agree records how many reviewers raised id ("2/3"), when it has that
// shape, and which (by model: those of another shape are left out).
func (l *Ledger) Agree(id, agreement string, reviewers []string) {
	if !reAgreement.MatchString(agreement) {
		return
	}
	for i := range l.Findings {
		if l.Findings[i].ID == id {
			l.Findings[i].Agreement, l.Findings[i].Reviewers = agreement, validModels(reviewers)
		}
	}
}

// Dismissed records who dismissed id and why, when a command said so: of
// a login or a reason of another shape, nothing is kept.
func (l *Ledger) Dismissed(id, by, reason string) {
	if !reLedgerLogin.MatchString(by) {
		return
	}
	for i := range l.Findings {
		if l.Findings[i].ID == id && l.Findings[i].Status == finding.StatusDismissed {
			l.Findings[i].DismissedBy, l.Findings[i].Reason = by, LedgerReason(reason)
		}
	}
}

// Conceded records whose reply gh-ocdx conceded the disputed id to: of a
// login of another shape, nothing is kept.
func (l *Ledger) Conceded(id, to string) {
	if !reLedgerLogin.MatchString(to) {
		return
	}
	for i := range l.Findings {
		if l.Findings[i].ID == id && l.Findings[i].Status == finding.StatusDisputed {
			l.Findings[i].ConcededTo = to
		}
	}
}

// Mark records that round n of run listed id (its At), when it has the shape.
func (l *Ledger) Mark(id, run string, n int) {
	where := at(run, n)
	if !reLedgerAt.MatchString(where) {
		return
	}
	for i := range l.Findings {
		if l.Findings[i].ID == id {
			l.Findings[i].At = where
		}
	}
}

// AddTokens adds what model spent to l.Tokens, when model has the shape
// and l names fewer than maxLedgerModels.
func (l *Ledger) AddTokens(model string, input, output int64) {
	if !reLedgerModel.MatchString(model) || input < 0 || output < 0 {
		return
	}
	for i := range l.Tokens {
		if l.Tokens[i].Model == model {
			l.Tokens[i].Input += input
			l.Tokens[i].Output += output
			return
		}
	}
	if len(l.Tokens) < maxLedgerModels {
		l.Tokens = append(l.Tokens, ModelTokens{Model: model, Input: input, Output: output})
	}
}

// Tooled records the tools whose results id is, those of the shape.
func (l *Ledger) Tooled(id string, tools []string) {
	for i := range l.Findings {
		if l.Findings[i].ID == id {
			l.Findings[i].Tools = validTools(tools)
		}
	}
}

// validTools are the tools of ts of the shape, each once, at most
// maxLedgerModels; nil when none.
func validTools(ts []string) []string { return valid(ts, reLedgerTool) }

// validModels are the models of ms of the shape, each once, at most
// maxLedgerModels; nil when none.
func validModels(ms []string) []string { return valid(ms, reLedgerModel) }

func valid(names []string, re *lazyRegexp) []string {
	var out []string
	for _, n := range names {
		if re.MatchString(n) && !slices.Contains(out, n) && len(out) < maxLedgerModels {
			out = append(out, n)
		}
	}
	return out
}

// Locate records where f is, as a finding of the basis review; an entry
// for f.ID must exist. What has not the shapes ParseLedger keeps is left
// out.
func (l *Ledger) Locate(f finding.Finding) {
	// A tab or a line break in a title (a model's) would make the entry one
	// ParseLedger refuses: the title is one line here, as reviewers are
	// shown it.
	w := Where{Priority: f.Priority, File: f.File, Side: f.Side, Title: text.Clip(text.OneLine(f.Title), MaxLedgerTitle)}
	if f.Line != nil {
		w.Line = *f.Line
	}
	if w.valid() != nil {
		return
	}
	for i := range l.Findings {
		if l.Findings[i].ID == f.ID {
			l.Findings[i].Where = w
		}
	}
}

// BasisFindings are the code findings of the review at Basis, as the
// ledger locates them, and ok when it names such a review.
func (l Ledger) BasisFindings() (fs []finding.Finding, ok bool) {
	if l.Basis == "" {
		return nil, false
	}
	// Not closed: a finding the basis review left to judge.
	return l.located(func(s finding.Status) bool {
		return s != finding.StatusDismissed && s != finding.StatusRefuted && s != finding.StatusResolved
	}), true
}

// BasisWith are the code findings of the review at Basis with status, as
// the ledger locates them: a dismissed or refuted one raised again is the
// same finding, under its ID (docs/architecture.md, Re-reviews).
func (l Ledger) BasisWith(status finding.Status) []finding.Finding {
	if l.Basis == "" {
		return nil
	}
	return l.located(func(s finding.Status) bool { return s == status })
}

// located are the located code findings whose status keep takes.
func (l Ledger) located(keep func(finding.Status) bool) []finding.Finding {
	fs := []finding.Finding{}
	for _, e := range l.Findings {
		if !keep(e.status()) || e.Priority == "" || strings.HasPrefix(e.ID, "THREAD-") {
			continue
		}
		f := e.Finding()
		f.Reviewers, f.Agreement, f.Tools = slices.Clone(e.Reviewers), e.Agreement, slices.Clone(e.Tools)
		if len(f.Reviewers) == 0 {
			f.Agreement = "" // who raised it is what the verifier goes by
		}
		fs = append(fs, f)
	}
	return fs
}

// Finding is the finding e names, where the ledger locates it: its ID,
// priority, file, line and title.
func (e LedgerEntry) Finding() finding.Finding {
	f := finding.Finding{ID: e.ID, Priority: e.Priority, File: e.File, Side: e.Side, Title: e.Title}
	if e.Line > 0 {
		line := e.Line
		f.Line = &line
	}
	return f
}

// unlocate forgets the basis: a fresh machine then reviews in full.
func (l *Ledger) unlocate() {
	l.Basis, l.Sampled = "", ""
	for i := range l.Findings {
		l.Findings[i].Where, l.Findings[i].At = Where{}, ""
	}
}

// valid says what is wrong with w, if anything.
func (w Where) valid() error {
	switch {
	case w == Where{}:
		return nil
	case !slices.Contains(finding.Priorities, w.Priority):
		return fmt.Errorf("priority %q", shortText(w.Priority))
	case w.File == "" && w.Line != 0 || len(w.File) > 512 || strings.HasPrefix(w.File, "/") || hasControl(w.File) ||
		slices.Contains(strings.Split(w.File, "/"), ".."):
		return fmt.Errorf("file %q", shortText(w.File))
	case w.Side != "" && w.Side != "LEFT":
		return fmt.Errorf("side %q", shortText(w.Side))
	case w.Line < 0 || w.Line > 1e8:
		return fmt.Errorf("line %d", w.Line)
	case len(w.Title) > MaxLedgerTitle+len("…") || hasControl(w.Title):
		return fmt.Errorf("title %q", shortText(w.Title))
	}
	return nil
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// Restore records that id was restored (LedgerEntry.Restored), and makes
// it open again if it was refuted.
func (l *Ledger) Restore(id string) {
	if !reLedgerID.MatchString(id) {
		return
	}
	for i := range l.Findings {
		if l.Findings[i].ID == id {
			l.Findings[i].Restored = true
			if l.Findings[i].Status == finding.StatusRefuted {
				l.Findings[i].Status = finding.StatusOpen
			}
			return
		}
	}
	l.Findings = append(l.Findings, LedgerEntry{ID: id, Restored: true})
}

// Restored returns the IDs of l's restored entries.
func (l Ledger) Restored() []string {
	var out []string
	for _, e := range l.Findings {
		if e.Restored {
			out = append(out, e.ID)
		}
	}
	return out
}

// ReviewedHead is the newest head a review read, as l knows it.
func (l Ledger) ReviewedHead() string {
	if l.V < 2 {
		return l.Head // a first-version ledger named only its round's head
	}
	return l.Reviewed
}

// With returns the IDs of l's entries with status.
func (l Ledger) With(status finding.Status) []string {
	var out []string
	for _, e := range l.Findings {
		if e.status() == status {
			out = append(out, e.ID)
		}
	}
	return out
}

// status is e's status, open when it has none.
func (e LedgerEntry) status() finding.Status {
	if e.Status == "" {
		return finding.StatusOpen
	}
	return e.Status
}

// Block renders l as the hidden block that ends a report: compact JSON, at
// most maxLedger bytes: past that the basis's locations are left out
// first, then the oldest closed entries (counted in Dropped, and said in a
// visible line before the block). Remaining
// entries (open, stuck, disputed) are never left out; a ledger of nothing
// but those beyond the limit is cut to its newest entries.
func (l Ledger) Block() string {
	l.V = ledgerVersion
	l.Findings = slices.Clone(l.Findings)
	if l.Findings == nil {
		l.Findings = []LedgerEntry{} // "findings":[] reads as a list to any parser
	}
	for i := range l.Findings {
		if l.Findings[i].Status == finding.StatusOpen {
			l.Findings[i].Status = "" // open is the default: the block stays small
		}
	}
	for {
		b, _ := json.Marshal(l)
		block := ledgerOpen + string(b) + ledgerClose
		if len(block) <= maxLedger || len(l.Findings) == 0 {
			if l.Dropped > 0 {
				what := fmt.Sprintf("its %d oldest closed findings", l.Dropped)
				if l.Dropped == 1 {
					what = "its oldest closed finding"
				}
				block = "_gh-ocdx's memory of this PR leaves out " + what + " (fixed, resolved or dismissed) to fit in a comment._\n" + block
			}
			return block
		}
		// Where the basis findings are goes first: it saves the next run
		// some tokens, where a closed entry may make a finding stuck.
		if l.Basis != "" || slices.ContainsFunc(l.Findings, func(e LedgerEntry) bool { return e.At != "" }) {
			l.unlocate()
			continue
		}
		// Then who raised and dismissed the closed ones, and why, and
		// whose reply a disputed one was conceded to: what a count of
		// outcomes would read, which decides nothing.
		if i := slices.IndexFunc(l.Findings, func(e LedgerEntry) bool {
			return e.ConcededTo != "" || !e.status().Remaining() && (len(e.Reviewers) > 0 || len(e.Tools) > 0 || e.DismissedBy != "" || e.Reason != "")
		}); i >= 0 {
			for j := range l.Findings {
				l.Findings[j].ConcededTo = ""
				if !l.Findings[j].status().Remaining() {
					l.Findings[j].Reviewers, l.Findings[j].Tools, l.Findings[j].DismissedBy, l.Findings[j].Reason = nil, nil, "", ""
				}
			}
			continue
		}
		// Drop, oldest closed first, the fewest entries whose JSON (and
		// comma) add up to the excess: one marshal per batch, not one per
		// entry. Fewer never fit, and the Dropped count only grows, so the
		// next pass drops on from the same minimum.
		for excess := len(block) - maxLedger; excess > 0 && len(l.Findings) > 0; {
			i := closedIndex(l.Findings)
			if i < 0 {
				i = 0
			}
			e, _ := json.Marshal(l.Findings[i])
			excess -= len(e) + 1
			l.Findings = append(l.Findings[:i:i], l.Findings[i+1:]...)
			l.Dropped++
		}
	}
}

// closedIndex is the index of the oldest entry no longer remaining, or -1.
func closedIndex(es []LedgerEntry) int {
	for i, e := range es {
		if !e.status().Remaining() {
			return i
		}
	}
	return -1
}

// errNoLedger: the body holds no ledger block.
var errNoLedger = errors.New("no ledger")

// ParseLedger reads the last ledger block of body. The block is as hostile
// as any text on a PR, even in a trusted login's comment (a person can
// edit it). Its header (run, round, head, verb) must have the shape gh-ocdx
// writes, or the whole ledger is refused; of its entries, those of a shape
// gh-ocdx does not write are left out, a second entry for an ID is left
// out, a commit is kept for fixed entries only, and a status this version
// does not know reads as open: remaining, never closed. warnings say what
// was left out.
func ParseLedger(body string) (Ledger, error) {
	l, _, err := parseLedgerWarn(body)
	return l, err
}

// parseLedgerWarn is ParseLedger with what it left out of the entries.
func parseLedgerWarn(body string) (l Ledger, warnings []string, err error) {
	i := strings.LastIndex(body, ledgerOpen)
	if i < 0 {
		return Ledger{}, nil, errNoLedger
	}
	rest := body[i+len(ledgerOpen):]
	j := strings.Index(rest, ledgerClose)
	if j < 0 || j > maxLedger {
		return Ledger{}, nil, fmt.Errorf("the ledger block is not closed within %d KB", maxLedger>>10)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(rest[:j])))
	if err := dec.Decode(&l); err != nil {
		return Ledger{}, nil, fmt.Errorf("the ledger is not valid JSON: %v", err)
	}
	if dec.More() {
		return Ledger{}, nil, errors.New("the ledger has text after its JSON")
	}
	if err := l.checkHead(); err != nil {
		return Ledger{}, nil, err
	}
	kept := make([]LedgerEntry, 0, len(l.Findings))
	seen := map[string]bool{}
	for _, e := range l.Findings {
		switch {
		case !reLedgerID.MatchString(e.ID):
			warnings = append(warnings, fmt.Sprintf("left out %q, not a finding ID", shortText(e.ID)))
			continue
		case seen[e.ID]:
			warnings = append(warnings, fmt.Sprintf("left out a second entry for %s", e.ID))
			continue
		}
		seen[e.ID] = true
		warnings = append(warnings, e.keep()...)
		kept = append(kept, e)
	}
	l.Findings = kept
	var tokens []ModelTokens
	for _, t := range l.Tokens {
		if reLedgerModel.MatchString(t.Model) && t.Input >= 0 && t.Output >= 0 && len(tokens) < maxLedgerModels &&
			!slices.ContainsFunc(tokens, func(x ModelTokens) bool { return x.Model == t.Model }) {
			tokens = append(tokens, t)
		}
	}
	if len(tokens) != len(l.Tokens) {
		warnings = append(warnings, "left out token counts not of gh-ocdx's shapes")
	}
	l.Tokens = tokens
	return l, warnings, nil
}

// checkHead refuses a ledger whose run, round, heads or kind are not of
// gh-ocdx's shapes: nothing of it is read.
func (l Ledger) checkHead() error {
	switch {
	case l.V < 0:
		return fmt.Errorf("the ledger's version %d is not one", l.V)
	case !reLedgerRun.MatchString(l.Run):
		return fmt.Errorf("the ledger's run %q is not a run ID", l.Run)
	case l.Round < 1 || l.Round > 99:
		return fmt.Errorf("the ledger's round %d is out of range", l.Round)
	case !reLedgerOID.MatchString(l.Head):
		return fmt.Errorf("the ledger's head %q is not a commit", l.Head)
	case l.Reviewed != "" && !reLedgerOID.MatchString(l.Reviewed):
		return fmt.Errorf("the ledger's reviewed head %q is not a commit", l.Reviewed)
	case l.Basis != "" && !reLedgerOID.MatchString(l.Basis):
		return fmt.Errorf("the ledger's basis %q is not a commit", l.Basis)
	case l.Sampled != "" && !reLedgerOID.MatchString(l.Sampled):
		return fmt.Errorf("the ledger's sampled head %q is not a commit", l.Sampled)
	case l.Dropped < 0:
		return errors.New("the ledger's dropped count is negative")
	case l.Kind != "" && l.Kind != "review-loop" && l.Kind != "fix" && l.Kind != "review-pr":
		return fmt.Errorf("the ledger's kind %q is not a verb of gh-ocdx", l.Kind)
	}
	return nil
}

// keep makes entry e, read from a ledger, one of gh-ocdx's shapes: an
// unknown status is read as open, and what is not of its shape (a fix's
// commit, the agreement, where it is, who raised it, its tools, its report,
// who dismissed it and why, whose reply it was conceded to) is left out;
// warnings say what was.
func (e *LedgerEntry) keep() (warnings []string) {
	if !slices.Contains(finding.Statuses, e.status()) {
		warnings = append(warnings, fmt.Sprintf("%s has the status %q, unknown here: read as open", e.ID, shortText(string(e.Status))))
		e.Status = finding.StatusOpen
	}
	if e.Status == "" {
		e.Status = finding.StatusOpen
	}
	if e.Status != finding.StatusFixed || !reLedgerOID.MatchString(e.Sha) {
		e.Sha = ""
	}
	if !reAgreement.MatchString(e.Agreement) {
		e.Agreement = ""
	}
	if err := e.Where.valid(); err != nil {
		warnings = append(warnings, fmt.Sprintf("left out where %s is: its %v is not of gh-ocdx's shapes", e.ID, err))
		e.Where = Where{}
	}
	if by := validModels(e.Reviewers); len(by) != len(e.Reviewers) || len(e.Reviewers) > maxLedgerModels {
		warnings = append(warnings, fmt.Sprintf("left out who raised %s: not models' names", e.ID))
		e.Reviewers = nil
	}
	if len(e.Reviewers) == 0 {
		e.Reviewers = nil
	}
	if tools := validTools(e.Tools); len(tools) != len(e.Tools) || len(e.Tools) > maxLedgerModels {
		warnings = append(warnings, fmt.Sprintf("left out the tools of %s: not tools' names", e.ID))
		e.Tools = nil
	}
	if len(e.Tools) == 0 {
		e.Tools = nil
	}
	if e.At != "" && !reLedgerAt.MatchString(e.At) {
		e.At = ""
	}
	if e.Status != finding.StatusDismissed || !reLedgerLogin.MatchString(e.DismissedBy) {
		e.DismissedBy, e.Reason = "", ""
	}
	if e.Status != finding.StatusDisputed || !reLedgerLogin.MatchString(e.ConcededTo) {
		e.ConcededTo = ""
	}
	if len(e.Reason) > maxLedgerReason+len("…") || hasControl(e.Reason) || e.Reason != strings.TrimSpace(e.Reason) {
		warnings = append(warnings, fmt.Sprintf("left out why %s was dismissed: not one line of at most %d bytes", e.ID, maxLedgerReason))
		e.Reason = ""
	}
	return warnings
}

// shortText is a value from a ledger as a warning quotes it: short.
func shortText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// StatusOf is id's status in l: open when l has no entry for it.
func (l Ledger) StatusOf(id string) finding.Status {
	if i := slices.IndexFunc(l.Findings, func(e LedgerEntry) bool { return e.ID == id }); i >= 0 {
		return l.Findings[i].status()
	}
	return finding.StatusOpen
}
