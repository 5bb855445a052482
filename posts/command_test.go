package posts

import (
	"strings"
	"testing"
)

// A dismissal's reason is the rest of the command's line, the IDs left
// out, one line, capped.
func TestDismissReason(t *testing.T) {
	for body, want := range map[string]string{
		"/ocdx dismiss QUAL-0badf00d":                                "",
		"/ocdx dismiss QUAL-0badf00d the caller bounds it\nmore":     "the caller bounds it",
		"/ocdx dismiss  QUAL-0badf00d  SEC-b0bf205b   a   test key ": "a test key",
		"/ocdx dismissal QUAL-0badf00d no":                           "",
		"please /ocdx dismiss QUAL-0badf00d":                         "",
		"/ocdx dismiss QUAL-0badf00d " + strings.Repeat("é", 300):    strings.Repeat("é", 100) + "…",
	} {
		if c, _ := ParseCommand(body); c.Reason != want {
			t.Errorf("the reason of %q: %q, want %q", body, c.Reason, want)
		}
	}
}

// A /ocdx restore command names IDs on its first line; anything else is not
// one.
func TestRestoreCommand(t *testing.T) {
	for body, want := range map[string]string{
		"/ocdx restore QUAL-00000001 rm PERF-12ab34cd\nthanks": "QUAL-00000001 PERF-12ab34cd",
		"/ocdx restoreQUAL-00000001":                           "-",
		"please /ocdx restore QUAL-00000001":                   "-",
		"/ocdx restore":                                        "",
	} {
		ids, _, ok := findingCommand(body, CmdRestore)
		got := strings.Join(ids, " ")
		if !ok {
			got = "-"
		}
		if got != want {
			t.Errorf("%q: %q, want %q", body, got, want)
		}
	}
}

// Only the verb and, for dismiss and restore, the IDs on the first line
// are read; ask takes the rest of the comment as its question.
func TestParseCommand(t *testing.T) {
	for body, want := range map[string]Command{
		"/ocdx review": {Verb: CmdReview},
		"/ocdx ask where is Get tested?\nand why":        {Verb: CmdAsk, Question: "where is Get tested?\nand why"},
		"/ocdx dismiss QUAL-1a2b3c4d rm -rf SEC-0000000": {Verb: CmdDismiss, IDs: []string{"QUAL-1a2b3c4d"}, AsWritten: true, Reason: "rm -rf SEC-0000000"},
		"/ocdx Approve": {Verb: "approve"},
		// A dismissal counts as gh-ocdx writes it (CommandLine); another
		// spelling is read as one, to be answered, but not acted on.
		"/ocdx dismiss QUAL-1a2b3c4d the caller bounds it":                     {Verb: CmdDismiss, IDs: []string{"QUAL-1a2b3c4d"}, AsWritten: true, Reason: "the caller bounds it"},
		"/ocdx DISMISS QUAL-1a2b3c4d":                                          {Verb: CmdDismiss, IDs: []string{"QUAL-1a2b3c4d"}},
		"/ocdx\tdismiss QUAL-1a2b3c4d":                                         {Verb: CmdDismiss, IDs: []string{"QUAL-1a2b3c4d"}},
		CommandLine(CmdRestore, []string{"QUAL-1a2b3c4d", "SEC-b0bf205b"}, ""): {Verb: CmdRestore, IDs: []string{"QUAL-1a2b3c4d", "SEC-b0bf205b"}, AsWritten: true},
	} {
		got, ok := ParseCommand(body)
		if !ok || got.Verb != want.Verb || got.Question != want.Question || strings.Join(got.IDs, ",") != strings.Join(want.IDs, ",") ||
			got.AsWritten != want.AsWritten || got.Reason != want.Reason {
			t.Errorf("%q: %+v, %v; want %+v", body, got, ok, want)
		}
	}
	for _, body := range []string{"please /ocdx review", "/ocdxreview", "/ocdx-review"} {
		if _, ok := ParseCommand(body); ok {
			t.Errorf("%q read as a command", body)
		}
	}
	if c, _ := ParseCommand("/ocdx approve"); c.Known() {
		t.Error("approve is a command")
	}
}
