package posts

import (
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
)

// Other versions of gh-ocdx read the ledger back from GitHub: the block a
// small third-version ledger makes is pinned byte for byte, and reads back
// as written.
func TestLedgerIsTheWireFormat(t *testing.T) {
	line := 3
	l := Ledger{Run: "20261124T101112-a1b2c3", Kind: "fix", Round: 2, Head: "916a9a4", Reviewed: "916a9a4", Basis: "916a9a4"}
	l.Set("QUAL-0badf00d", finding.StatusOpen, "")
	l.Agree("QUAL-0badf00d", "2/3", []string{"openai/gpt-4.1", "anthropic/claude-sonnet-4-5"})
	l.Locate(finding.Finding{ID: "QUAL-0badf00d", Priority: "P2", File: "cache.go", Line: &line, Title: "Cache size is not bounded"})
	l.Mark("QUAL-0badf00d", "20261124T101112-a1b2c3", 2)
	l.Set("PERF-12ab34cd", finding.StatusFixed, "abcdef0")
	l.Set("SEC-b0bf205b", finding.StatusDismissed, "")
	l.Dismissed("SEC-b0bf205b", "mona", "a test key")
	l.Set("ARCH-0000beef", finding.StatusDisputed, "")
	l.Conceded("ARCH-0000beef", "hubot")
	l.AddTokens("openai/gpt-4.1", 1200, 300)
	const want = `<!-- ocdx:ledger {"v":3,"run":"20261124T101112-a1b2c3","kind":"fix","round":2,"head":"916a9a4","reviewed":"916a9a4","basis":"916a9a4","findings":[{"id":"QUAL-0badf00d","agreement":"2/3","p":"P2","file":"cache.go","line":3,"title":"Cache size is not bounded","by":["openai/gpt-4.1","anthropic/claude-sonnet-4-5"],"at":"20261124T101112-a1b2c3/2"},{"id":"PERF-12ab34cd","status":"fixed","sha":"abcdef0"},{"id":"SEC-b0bf205b","status":"dismissed","dby":"mona","why":"a test key"},{"id":"ARCH-0000beef","status":"disputed","cto":"hubot"}],"tokens":[{"model":"openai/gpt-4.1","in":1200,"out":300}]} -->`
	if got := l.Block(); got != want {
		t.Fatalf("the ledger's block changed:\n%s\nwant\n%s", got, want)
	}
	got, warnings, err := parseLedgerWarn("## report\n\n" + want)
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	if again := got.Block(); again != want {
		t.Errorf("read back and written again:\n%s", again)
	}
}
