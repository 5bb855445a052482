package posts

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
)

func TestLedgerRoundTrip(t *testing.T) {
	l := Ledger{Run: "20261124T101112-a1b2c3", Round: 2, Head: "916a9a4c0ffee"}
	l.Set("SEC-b0bf205b", finding.StatusOpen, "")
	l.Set("QUAL-0badf00d", finding.StatusFixed, "abcdef0")
	l.Set("SEC-b0bf205b", finding.StatusStuck, "")
	l.Agree("QUAL-0badf00d", "2/3", []string{"openai/gpt-4.1", "anthropic/claude-sonnet-4-5"})
	l.Agree("SEC-b0bf205b", "2/3 reviewers; rm -rf", nil) // not the shape: left out
	body := "## report\n\ntext <!-- ocdx:ledger {\"run\":\"forged\"} -->\n" + l.Block()
	got, err := ParseLedger(body)
	if err != nil {
		t.Fatal(err)
	}
	l.V = ledgerVersion
	if fmt.Sprint(got) != fmt.Sprint(l) {
		t.Errorf("got %+v, want %+v", got, l)
	}
	if s := got.With(finding.StatusStuck); len(s) != 1 || s[0] != "SEC-b0bf205b" {
		t.Errorf("stuck: %v", s)
	}
}

// Over maxLedger, the oldest closed entries go first, the block says in
// words how many, and open and stuck entries stay.
func TestLedgerBlockKeepsWithinItsSize(t *testing.T) {
	l := Ledger{Run: "20261124T101112-a1b2c3", Round: 3, Head: "916a9a4"}
	const n = 1200
	for i := range n {
		l.Set(fmt.Sprintf("QUAL-%08x", i), finding.StatusFixed, "abcdef0")
	}
	l.Set("SEC-00000001", finding.StatusStuck, "")
	l.Set("SEC-00000002", finding.StatusOpen, "")
	block := l.Block()
	got, err := ParseLedger(block)
	if err != nil {
		t.Fatal(err)
	}
	if len(block) > maxLedger+200 || got.Dropped == 0 || got.Dropped+len(got.Findings) != n+2 {
		t.Fatalf("block of %d bytes: dropped %d, kept %d", len(block), got.Dropped, len(got.Findings))
	}
	if got.Findings[0].ID == "QUAL-00000000" || len(got.With(finding.StatusStuck)) != 1 || len(got.With(finding.StatusOpen)) != 1 {
		t.Errorf("the oldest closed entries should go first, open and stuck stay: %v", got.Findings[:3])
	}
	if !strings.Contains(block, fmt.Sprintf("leaves out its %d oldest closed findings", got.Dropped)) {
		t.Errorf("the block does not say what it left out:\n%s", block[:200])
	}
	// 400 entries, a long PR's worth, fit whole.
	small := Ledger{Run: l.Run, Round: 1, Head: l.Head, Findings: l.Findings[:400]}
	if got, _ := ParseLedger(small.Block()); got.Dropped != 0 || len(got.Findings) != 400 {
		t.Errorf("400 entries: dropped %d", got.Dropped)
	}
}

// A ledger is text on a PR: a header gh-ocdx does not write refuses the
// whole ledger; an entry it does not write is left out, or read so that it
// can only keep a finding remaining, never close one.
func TestParseLedgerRefusesWhatGhOcdxDoesNotWrite(t *testing.T) {
	ok := `{"run":"20261124T101112-a1b2c3","round":1,"head":"916a9a4","findings":[%s]}`
	for name, js := range map[string]string{
		"bad run":    `{"run":"x","round":1,"head":"916a9a4","findings":[]}`,
		"bad round":  `{"run":"20261124T101112-a1b2c3","round":0,"head":"916a9a4","findings":[]}`,
		"bad head":   `{"run":"20261124T101112-a1b2c3","round":1,"head":"HEAD~1","findings":[]}`,
		"bad kind":   `{"run":"20261124T101112-a1b2c3","kind":"sh","round":1,"head":"916a9a4","findings":[]}`,
		"trailing":   fmt.Sprintf(ok, ``) + ` {}`,
		"not closed": fmt.Sprintf(ok, ``) + strings.Repeat(" ", maxLedger),
	} {
		body := "<!-- ocdx:ledger " + js + " -->"
		if name == "not closed" {
			body = "<!-- ocdx:ledger " + js
		}
		if _, err := ParseLedger(body); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseLedger("no block here"); err != errNoLedger {
		t.Errorf("no block: %v", err)
	}

	entries := `{"id":"rm -rf","status":"fixed"},{"id":"SEC-b0bf205b","status":"approved"},{"id":"SEC-b0bf205b","status":"dismissed"},` +
		`{"id":"QUAL-0badf00d","status":"stuck","sha":"abcdef0"},{"id":"QUAL-1badf00d"},{"id":"THREAD-1234567","status":"disputed"},{"id":"THREAD-PRRC_kwDOabc","status":"fixed","sha":"abcdef0"}`
	l, warnings, err := parseLedgerWarn(`<!-- ocdx:ledger {"v":3,"run":"20261124T101112-a1b2c3","round":1,"head":"916a9a4","verify":["sh x"],"findings":[` + entries + `]} -->`)
	if err != nil {
		t.Fatal(err)
	}
	want := []LedgerEntry{{ID: "SEC-b0bf205b", Status: finding.StatusOpen}, {ID: "QUAL-0badf00d", Status: finding.StatusStuck}, {ID: "QUAL-1badf00d", Status: finding.StatusOpen},
		{ID: "THREAD-1234567", Status: finding.StatusDisputed}, {ID: "THREAD-PRRC_kwDOabc", Status: finding.StatusFixed, Sha: "abcdef0"}}
	if fmt.Sprint(l.Findings) != fmt.Sprint(want) {
		t.Errorf("entries %+v\nwant    %+v", l.Findings, want)
	}
	if len(warnings) != 3 {
		t.Errorf("warnings %q: want the bad ID, the unknown status and the second entry", warnings)
	}
}

// A ledger of no findings reads as an empty list, not a null.
func TestLedgerBlockOfNothing(t *testing.T) {
	block := Ledger{Run: "20261124T101112-a1b2c3", Kind: "review-pr", Round: 1, Head: "916a9a4"}.Block()
	if !strings.Contains(block, `"findings":[]`) {
		t.Errorf("block %s", block)
	}
	if _, err := ParseLedger(block); err != nil {
		t.Error(err)
	}
}

// The basis review's findings are located in the ledger, and read back as
// findings a re-review lists; a location of another shape is left out with
// a warning, the entry kept; over maxLedger the locations go before any
// entry does.
func TestLedgerLocatesTheBasisFindings(t *testing.T) {
	line := 12
	l := Ledger{Run: "20261124T101112-a1b2c3", Round: 1, Head: "916a9a4c", Basis: "916a9a4c"}
	l.Set("QUAL-0badf00d", finding.StatusOpen, "")
	l.Locate(finding.Finding{ID: "QUAL-0badf00d", Priority: "P1", File: "a.go", Line: &line, Title: strings.Repeat("é", 100)})
	got, err := ParseLedger(l.Block())
	if err != nil {
		t.Fatal(err)
	}
	fs, ok := got.BasisFindings()
	if !ok || len(fs) != 1 || fs[0].Priority != "P1" || fs[0].File != "a.go" || *fs[0].Line != 12 || len(fs[0].Title) > MaxLedgerTitle+len("…") || !strings.HasSuffix(fs[0].Title, "é…") {
		t.Fatalf("basis %v %+v", ok, fs)
	}

	left := Ledger{Run: "20261124T101112-a1b2c3", Round: 1, Head: "916a9a4c", Basis: "916a9a4c"}
	left.Set("QUAL-0badf00e", finding.StatusOpen, "")
	left.Locate(finding.Finding{ID: "QUAL-0badf00e", Priority: "P2", File: "a.go", Line: &line, Side: "LEFT", Title: "Removed check"})
	if got, err := ParseLedger(left.Block()); err != nil {
		t.Fatal(err)
	} else if fs, _ := got.BasisFindings(); len(fs) != 1 || fs[0].Side != "LEFT" {
		t.Errorf("a finding on the base's side comes back as %+v", fs)
	}

	for _, where := range []string{`"p":"P1","file":"a.go","side":"RIGHT;rm"`, `"p":"P9","file":"a.go"`, `"p":"P1","file":"../../etc/passwd"`, `"p":"P1","file":"/etc/passwd"`, `"p":"P1","file":"a.go","title":"a\u0007b"`, `"p":"P1","file":"a.go","line":-1`} {
		body := `<!-- ocdx:ledger {"v":2,"run":"20261124T101112-a1b2c3","round":1,"head":"916a9a4c","basis":"916a9a4c","findings":[{"id":"QUAL-0badf00d",` + where + `}]} -->`
		got, warnings, err := parseLedgerWarn(body)
		if err != nil || len(got.Findings) != 1 || got.Findings[0].Where != (Where{}) || len(warnings) != 1 {
			t.Errorf("%s: %+v, %v, %v", where, got, warnings, err)
		}
	}

	big := Ledger{Run: "20261124T101112-a1b2c3", Round: 1, Head: "916a9a4c", Basis: "916a9a4c"}
	for i := range 400 {
		id := fmt.Sprintf("QUAL-%08x", i)
		big.Set(id, finding.StatusOpen, "")
		big.Locate(finding.Finding{ID: id, Priority: "P2", File: "some/long/path/to/a/file.go", Title: strings.Repeat("t", 100)})
	}
	got, err = ParseLedger(big.Block())
	if err != nil || len(got.Findings) != 400 || got.Dropped != 0 {
		t.Fatalf("a large ledger: %d entries, %d dropped, %v", len(got.Findings), got.Dropped, err)
	}
	if _, ok := got.BasisFindings(); ok {
		t.Error("a ledger past its size keeps a basis whose locations it left out")
	}
}

// A restored entry is open again and says so through a round trip; a
// restore never closes anything.
func TestLedgerRestore(t *testing.T) {
	var l Ledger
	l.Run, l.Round, l.Head = "20260101T000000-abcdef", 1, "abcdef0"
	l.Set("QUAL-00000001", finding.StatusRefuted, "")
	l.Set("QUAL-00000002", finding.StatusStuck, "")
	l.Restore("QUAL-00000001")
	l.Restore("QUAL-00000002")
	l.Restore("not an id")
	got, err := ParseLedger(l.Block())
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Restored(); len(r) != 2 || r[0] != "QUAL-00000001" {
		t.Errorf("restored %v", r)
	}
	if got.With(finding.StatusRefuted) != nil || len(got.With(finding.StatusOpen)) != 1 || len(got.With(finding.StatusStuck)) != 1 {
		t.Errorf("statuses after restore: %+v", got.Findings)
	}
}

// A third-version ledger carries who raised each finding, the report that
// lists it, who dismissed it and why, and each model's tokens: written and
// read back the same, and the basis's findings keep their reviewers.
func TestLedgerV3RoundTrip(t *testing.T) {
	l := Ledger{Run: "20261124T101112-a1b2c3", Round: 2, Head: "916a9a4", Reviewed: "916a9a4", Basis: "916a9a4"}
	line := 3
	l.Set("QUAL-0badf00d", finding.StatusOpen, "")
	l.Agree("QUAL-0badf00d", "2/3", []string{"openai/gpt-4.1", "anthropic/claude-sonnet-4-5", "openai/gpt-4.1", "evil model"})
	l.Locate(finding.Finding{ID: "QUAL-0badf00d", Priority: "P2", File: "cache.go", Line: &line, Title: "Cache size is not bounded"})
	l.Mark("QUAL-0badf00d", "20261124T101112-a1b2c3", 2)
	l.Mark("QUAL-0badf00d", "20261124T101112-a1b2c3 or else", 2) // not the shape: kept as it was
	l.Set("SEC-b0bf205b", finding.StatusDismissed, "")
	l.Dismissed("SEC-b0bf205b", "mona", "a test key\n<!-- ocdx:ledger {} -->")
	l.Set("PERF-12ab34cd", finding.StatusDismissed, "")
	l.Dismissed("PERF-12ab34cd", "not a login!", "why") // nobody: nothing kept
	l.AddTokens("openai/gpt-4.1", 1200, 300)
	l.AddTokens("openai/gpt-4.1", 800, 100)
	l.AddTokens("anthropic/claude-sonnet-4-5", 900, 200)
	l.AddTokens("../etc", 1, 1)

	got, warnings, err := parseLedgerWarn(l.Block())
	if err != nil || len(warnings) > 0 {
		t.Fatalf("%v %v", err, warnings)
	}
	if got.V != 3 {
		t.Errorf("version %d", got.V)
	}
	e := got.Findings[0]
	if fmt.Sprint(e.Reviewers) != "[openai/gpt-4.1 anthropic/claude-sonnet-4-5]" || e.Agreement != "2/3" || e.At != "20261124T101112-a1b2c3/2" {
		t.Errorf("the open entry: %+v", e)
	}
	if d := got.Findings[1]; d.DismissedBy != "mona" || d.Reason != "a test key <!-- ocdx:ledger {} -->" {
		t.Errorf("the dismissal: %+v", d)
	}
	if d := got.Findings[2]; d.DismissedBy != "" || d.Reason != "" {
		t.Errorf("a dismissal by no login keeps who and why: %+v", d)
	}
	if fmt.Sprint(got.Tokens) != "[{openai/gpt-4.1 2000 400} {anthropic/claude-sonnet-4-5 900 200}]" {
		t.Errorf("tokens %v", got.Tokens)
	}
	fs, _ := got.BasisFindings()
	if len(fs) != 1 || len(fs[0].Reviewers) != 2 || fs[0].Agreement != "2/3" {
		t.Errorf("the basis findings lost who raised them: %+v", fs)
	}
	// The block is one HTML comment: a reason cannot close it.
	if b := l.Block(); strings.Count(b, " -->") != 1 {
		t.Errorf("the reason closed the block:\n%s", b)
	}
}

// What a ledger says is as hostile as the PR: a reviewer, a dismisser, a
// reason, a report or a token count of another shape is left out, the
// rest of the entry kept; a version-2 ledger (no reviewers) reads, its
// basis findings with no agreement (nobody known raised them).
func TestParseLedgerV3RefusesWhatGhOcdxDoesNotWrite(t *testing.T) {
	long := strings.Repeat("x", maxLedgerReason+10)
	body := `<!-- ocdx:ledger {"v":3,"run":"20261124T101112-a1b2c3","round":1,"head":"abcdef0","basis":"abcdef0","findings":[` +
		`{"id":"QUAL-0badf00d","p":"P2","file":"a.go","title":"t","agreement":"2/3","by":["openai/a","$(rm -rf)"],"at":"../x"},` +
		`{"id":"SEC-b0bf205b","status":"dismissed","dby":"mona","why":"` + long + `"},` +
		`{"id":"PERF-12ab34cd","status":"open","dby":"mona","why":"open, not dismissed"}],` +
		`"tokens":[{"model":"openai/a","in":1,"out":2},{"model":"openai/a","in":5,"out":5},{"model":"no slash","in":1,"out":1},{"model":"openai/b","in":-1,"out":1}]} -->`
	got, warnings, err := parseLedgerWarn(body)
	if err != nil {
		t.Fatal(err)
	}
	if e := got.Findings[0]; e.Reviewers != nil || e.At != "" || e.Priority != "P2" {
		t.Errorf("entry 0: %+v", e)
	}
	if e := got.Findings[1]; e.DismissedBy != "mona" || e.Reason != "" {
		t.Errorf("entry 1: %+v", e)
	}
	if e := got.Findings[2]; e.DismissedBy != "" || e.Reason != "" {
		t.Errorf("entry 2: %+v", e)
	}
	if fmt.Sprint(got.Tokens) != "[{openai/a 1 2}]" {
		t.Errorf("tokens %v", got.Tokens)
	}
	if len(warnings) != 3 {
		t.Errorf("warnings %q", warnings)
	}
	fs, _ := got.BasisFindings()
	if len(fs) != 1 || fs[0].Agreement != "" {
		t.Errorf("a finding nobody known raised keeps its agreement: %+v", fs)
	}

	v2 := `<!-- ocdx:ledger {"v":2,"run":"20261124T101112-a1b2c3","round":1,"head":"abcdef0","reviewed":"abcdef0","basis":"abcdef0",` +
		`"findings":[{"id":"QUAL-0badf00d","agreement":"2/3","p":"P1","file":"a.go","line":3,"title":"t"},{"id":"SEC-b0bf205b","status":"dismissed"}]} -->`
	old, warnings, err := parseLedgerWarn(v2)
	if err != nil || len(warnings) > 0 || old.V != 2 || len(old.Findings) != 2 || old.ReviewedHead() != "abcdef0" {
		t.Fatalf("the v2 ledger: %+v %v %v", old, warnings, err)
	}
	if fs, ok := old.BasisFindings(); !ok || len(fs) != 1 || fs[0].Line == nil || *fs[0].Line != 3 {
		t.Errorf("the v2 basis: %+v", fs)
	}
}

// The size budget of a third-version ledger: a long PR's open findings,
// each at the longest of every shape (title, file, three reviewers, its
// report), fit whole with their locations; past maxLedger the locations
// go first, then who raised and dismissed the closed ones, then the
// oldest closed entries; a remaining entry and who raised it stay.
func TestLedgerV3BlockKeepsWithinItsSize(t *testing.T) {
	models := []string{"anthropic/claude-sonnet-4-5-20250929", "openai/gpt-4.1-2025-04-14", "google/gemini-2.5-pro-preview-06-05"}
	full := func(n, closed int) Ledger {
		l := Ledger{Run: "20261124T101112-a1b2c3", Round: 9, Head: "916a9a4c0ffee", Basis: "916a9a4c0ffee"}
		for i := range n {
			id := fmt.Sprintf("QUAL-%08x", i)
			l.Set(id, finding.StatusOpen, "")
			if i < closed {
				l.Set(id, finding.StatusDismissed, "")
				l.Dismissed(id, "a-maintainer-with-a-long-login", strings.Repeat("r", maxLedgerReason))
			}
			l.Agree(id, "3/3", models)
			line := 100000 + i
			l.Locate(finding.Finding{ID: id, Priority: "P2", File: strings.Repeat("d/", 40) + "file.go", Line: &line, Title: strings.Repeat("t", MaxLedgerTitle)})
			l.Mark(id, l.Run, 9)
		}
		for _, m := range models {
			l.AddTokens(m, 1<<40, 1<<40)
		}
		return l
	}
	// Measured: the largest count of open findings that fits located.
	fits := 0
	for n := 10; n < 400; n += 10 {
		got, _ := ParseLedger(full(n, 0).Block())
		if got.Basis == "" {
			break
		}
		fits = n
	}
	t.Logf("open findings that fit whole, at the longest of every shape: %d (%d bytes each)", fits, len(full(1, 0).Block())-len(Ledger{Run: "20261124T101112-a1b2c3", Round: 9, Head: "916a9a4c0ffee", Basis: "916a9a4c0ffee"}.Block()))
	if fits < 50 {
		t.Errorf("only %d located open findings fit in %d bytes", fits, maxLedger)
	}
	l := full(600, 500)
	block := l.Block()
	got, err := ParseLedger(block)
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.Index(block, "<!-- "); len(block)-i > maxLedger {
		t.Errorf("the block is %d bytes", len(block)-i)
	}
	remaining := 0
	for _, e := range got.Findings {
		if e.Status.Remaining() {
			remaining++
			if len(e.Reviewers) != 3 {
				t.Fatalf("a remaining entry lost who raised it: %+v", e)
			}
		} else if e.DismissedBy != "" || e.Reviewers != nil {
			t.Fatalf("a closed entry kept who raised or dismissed it over the budget: %+v", e)
		}
	}
	if remaining != 100 || got.Basis != "" || got.Dropped+len(got.Findings) != 600 {
		t.Errorf("remaining %d, basis %q, dropped %d, kept %d", remaining, got.Basis, got.Dropped, len(got.Findings))
	}
}

// The tools whose results a finding is go round the ledger, so a fresh
// machine names them; a name of another shape is left out with a warning.
func TestLedgerKeepsTheTools(t *testing.T) {
	l := Ledger{Run: "20261124T101112-a1b2c3", Round: 1, Head: "916a9a4", Reviewed: "916a9a4", Basis: "916a9a4"}
	line := 5
	l.Set("QUAL-1982a5d1", finding.StatusOpen, "")
	l.Tooled("QUAL-1982a5d1", []string{"staticcheck", "staticcheck", "<b>evil</b>"})
	l.Locate(finding.Finding{ID: "QUAL-1982a5d1", Priority: "P2", File: "cache.go", Line: &line, Title: "CL200: no doc comment"})
	got, warnings, err := parseLedgerWarn(l.Block())
	if err != nil || len(warnings) > 0 {
		t.Fatalf("%v %v", err, warnings)
	}
	fs, _ := got.BasisFindings()
	if len(fs) != 1 || fmt.Sprint(fs[0].Tools) != "[staticcheck]" {
		t.Errorf("the basis finding's tools: %+v", fs)
	}
	hostile := `<!-- ocdx:ledger {"v":3,"run":"20261124T101112-a1b2c3","round":1,"head":"abcdef0","findings":[{"id":"QUAL-0badf00d","tools":["ok","@mona <img>"]}]} -->`
	got, warnings, err = parseLedgerWarn(hostile)
	if err != nil || got.Findings[0].Tools != nil || len(warnings) != 1 {
		t.Errorf("a hostile tool name: %+v %v %v", got.Findings, warnings, err)
	}
}

// A disputed finding keeps whose reply gh-ocdx conceded it to, through
// the block and back; a login of another shape, or one on an entry that is
// not disputed, is left out; a ledger written before it (v3 without it,
// v2) still reads.
func TestLedgerKeepsWhomAConcessionAnswered(t *testing.T) {
	l := Ledger{Run: "20261124T101112-a1b2c3", Round: 2, Head: "916a9a4"}
	l.Set("QUAL-0badf00d", finding.StatusDisputed, "")
	l.Conceded("QUAL-0badf00d", "mona")
	l.Set("PERF-12ab34cd", finding.StatusDisputed, "")
	l.Conceded("PERF-12ab34cd", "not a login!")
	l.Set("DOCS-0000beef", finding.StatusOpen, "")
	l.Conceded("DOCS-0000beef", "mona") // not disputed: nothing kept
	got, warnings, err := parseLedgerWarn(l.Block())
	if err != nil || len(warnings) > 0 {
		t.Fatalf("%v %v", err, warnings)
	}
	if to := [3]string{got.Findings[0].ConcededTo, got.Findings[1].ConcededTo, got.Findings[2].ConcededTo}; to != [3]string{"mona", "", ""} {
		t.Errorf("conceded to %q, want mona alone", to)
	}
	// Dismissed after, it is the dismissal that says who decided.
	got.Set("QUAL-0badf00d", finding.StatusDismissed, "")
	if e := got.Entry("QUAL-0badf00d"); e.ConcededTo != "" {
		t.Errorf("a dismissed entry keeps whom it was conceded to: %+v", e)
	}

	forged := `<!-- ocdx:ledger {"v":3,"run":"20261124T101112-a1b2c3","round":1,"head":"abcdef0","findings":[` +
		`{"id":"QUAL-0badf00d","status":"open","cto":"mona"},{"id":"PERF-12ab34cd","status":"disputed","cto":"$(whoami)"}]} -->`
	if got, _, err := parseLedgerWarn(forged); err != nil || got.Findings[0].ConcededTo != "" || got.Findings[1].ConcededTo != "" {
		t.Errorf("kept a concession of another shape: %+v %v", got.Findings, err)
	}
	for _, old := range []string{
		`<!-- ocdx:ledger {"v":3,"run":"20261124T101112-a1b2c3","round":1,"head":"abcdef0","findings":[{"id":"QUAL-0badf00d","status":"disputed"}]} -->`,
		`<!-- ocdx:ledger {"v":2,"run":"20261124T101112-a1b2c3","round":1,"head":"abcdef0","reviewed":"abcdef0","findings":[{"id":"QUAL-0badf00d","status":"disputed"}]} -->`,
	} {
		got, warnings, err := parseLedgerWarn(old)
		if err != nil || len(warnings) > 0 || got.StatusOf("QUAL-0badf00d") != finding.StatusDisputed || got.Findings[0].ConcededTo != "" {
			t.Errorf("an older ledger: %+v %v %v", got.Findings, warnings, err)
		}
	}
}
