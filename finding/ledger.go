package finding

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// The ledger is what gh-ocdx knows of a PR's findings, hidden at the end of
// every report it posts, so that any machine can take up the PR where the
// last one left it (docs/architecture.md, The ledger). It holds IDs and
// statuses only: nothing a PR or a model wrote.

// The statuses of a finding in the ledger.
const (
	StatusOpen      = "open"      // raised by the last round that saw it
	StatusFixed     = "fixed"     // a fix commit (Sha) addressed it
	StatusStuck     = "stuck"     // came back after being fixed: never fixed again
	StatusDismissed = "dismissed" // a person told gh-ocdx to stop raising it
)

// MaxLedger bounds the ledger block in a comment.
const MaxLedger = 8 << 10

// Ledger is the state of a PR's findings after one post.
type Ledger struct {
	Run      string        `json:"run"`
	Kind     string        `json:"kind,omitempty"` // the run's verb: review-loop (""), fix, review-pr
	Round    int           `json:"round"`
	Head     string        `json:"head"`
	Findings []LedgerEntry `json:"findings"` // oldest first
	// Dropped counts the closed (fixed, dismissed) entries left out, oldest
	// first, to keep the block within MaxLedger.
	Dropped int `json:"dropped,omitempty"`
}

// LedgerEntry is one finding's status.
type LedgerEntry struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Sha    string `json:"sha,omitempty"` // the fix commit, for fixed
}

const ledgerOpen, ledgerClose = "<!-- ocdx:ledger ", " -->"

var (
	reLedgerID  = regexp.MustCompile(`^[A-Z]{2,6}-[0-9a-f]{8}$|^THREAD-[0-9]{1,12}$`)
	reLedgerRun = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}-[0-9a-f]{6}$`)
	reLedgerOID = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
)

// ValidLedgerID reports whether s has the shape of a finding ID.
func ValidLedgerID(s string) bool { return reLedgerID.MatchString(s) }

// Set records status for id (sha for fixed), keeping the entry's place.
// An ID or a commit of another shape is left out: the block must parse.
func (l *Ledger) Set(id, status, sha string) {
	if !reLedgerID.MatchString(id) {
		return
	}
	if status != StatusFixed || !reLedgerOID.MatchString(sha) {
		sha = ""
	}
	for i := range l.Findings {
		if l.Findings[i].ID == id {
			l.Findings[i].Status, l.Findings[i].Sha = status, sha
			return
		}
	}
	l.Findings = append(l.Findings, LedgerEntry{ID: id, Status: status, Sha: sha})
}

// With returns the IDs of l's entries with status.
func (l Ledger) With(status string) []string {
	var out []string
	for _, e := range l.Findings {
		if e.Status == status {
			out = append(out, e.ID)
		}
	}
	return out
}

// Block renders l as the hidden block that ends a report: compact JSON, at
// most MaxLedger bytes, the oldest closed entries left out first (and
// counted in Dropped). Open and stuck entries are never left out; a ledger
// of nothing but those beyond the limit is cut to its newest entries.
func (l Ledger) Block() string {
	if l.Findings == nil {
		l.Findings = []LedgerEntry{} // "findings":[] reads as a list to any parser
	}
	for {
		b, _ := json.Marshal(l)
		block := ledgerOpen + string(b) + ledgerClose
		if len(block) <= MaxLedger || len(l.Findings) == 0 {
			return block
		}
		i := closedIndex(l.Findings)
		if i < 0 {
			i = 0
		}
		l.Findings = append(l.Findings[:i:i], l.Findings[i+1:]...)
		l.Dropped++
	}
}

// closedIndex is the index of the oldest fixed or dismissed entry, or -1.
func closedIndex(es []LedgerEntry) int {
	for i, e := range es {
		if e.Status == StatusFixed || e.Status == StatusDismissed {
			return i
		}
	}
	return -1
}

// ErrNoLedger: the body holds no ledger block.
var ErrNoLedger = errors.New("no ledger")

// ParseLedger reads the last ledger block of body. The block is as hostile
// as any text on a PR, even in a comment of gh-ocdx's login (a person can
// edit it): it is decoded strictly, and every field must have the shape
// gh-ocdx writes, or the whole ledger is refused.
func ParseLedger(body string) (Ledger, error) {
	i := strings.LastIndex(body, ledgerOpen)
	if i < 0 {
		return Ledger{}, ErrNoLedger
	}
	rest := body[i+len(ledgerOpen):]
	j := strings.Index(rest, ledgerClose)
	if j < 0 || j > MaxLedger {
		return Ledger{}, errors.New("the ledger block is not closed within 8 KB")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(rest[:j])))
	dec.DisallowUnknownFields()
	var l Ledger
	if err := dec.Decode(&l); err != nil {
		return Ledger{}, fmt.Errorf("the ledger is not valid JSON: %v", err)
	}
	if dec.More() {
		return Ledger{}, errors.New("the ledger has text after its JSON")
	}
	switch {
	case !reLedgerRun.MatchString(l.Run):
		return Ledger{}, fmt.Errorf("the ledger's run %q is not a run ID", l.Run)
	case l.Round < 1 || l.Round > 99:
		return Ledger{}, fmt.Errorf("the ledger's round %d is out of range", l.Round)
	case !reLedgerOID.MatchString(l.Head):
		return Ledger{}, fmt.Errorf("the ledger's head %q is not a commit", l.Head)
	case l.Dropped < 0:
		return Ledger{}, errors.New("the ledger's dropped count is negative")
	case l.Kind != "" && l.Kind != "review-loop" && l.Kind != "fix" && l.Kind != "review-pr":
		return Ledger{}, fmt.Errorf("the ledger's kind %q is not a verb of gh-ocdx", l.Kind)
	}
	seen := map[string]bool{}
	for _, e := range l.Findings {
		switch {
		case !reLedgerID.MatchString(e.ID):
			return Ledger{}, fmt.Errorf("the ledger names %q, not a finding ID", e.ID)
		case seen[e.ID]:
			return Ledger{}, fmt.Errorf("the ledger names %s twice", e.ID)
		case e.Status != StatusOpen && e.Status != StatusFixed && e.Status != StatusStuck && e.Status != StatusDismissed:
			return Ledger{}, fmt.Errorf("the ledger gives %s the unknown status %q", e.ID, e.Status)
		case e.Sha != "" && (e.Status != StatusFixed || !reLedgerOID.MatchString(e.Sha)):
			return Ledger{}, fmt.Errorf("the ledger gives %s the commit %q", e.ID, e.Sha)
		}
		seen[e.ID] = true
	}
	return l, nil
}
