package change

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/github"
)

// FuzzTruncateDiff: the cut never splits a UTF-8 sequence, stays within the
// cap, always carries the notice when anything was left out, and the task
// message always shows the file summary before the diff.
func FuzzTruncateDiff(f *testing.F) {
	f.Add([]byte("diff --git a/x b/x\n+ok\n"), true, 1)
	f.Add([]byte(strings.Repeat("+ünï\n", DiffLimit/3)), true, 3)
	f.Add([]byte(strings.Repeat("é", DiffLimit)), false, 0)
	f.Add([]byte{}, false, 2)
	f.Fuzz(func(t *testing.T, diff []byte, complete bool, repeat int) {
		if repeat > 0 && repeat < 64 && len(diff) > 0 {
			diff = []byte(strings.Repeat(string(diff), 1+DiffLimit/len(diff)*(repeat%3)))
		}
		got, truncated := TruncateDiff(diff, complete)
		if utf8.Valid(diff) && !utf8.ValidString(got) {
			t.Fatal("the cut split a UTF-8 sequence")
		}
		if !truncated {
			if got != string(diff) {
				t.Fatal("an untruncated diff must be unchanged")
			}
			return
		}
		body, ok := strings.CutSuffix(got, DiffTruncatedNotice)
		if !ok {
			t.Fatal("a truncated diff must end with the notice")
		}
		if len(body) > DiffLimit+1 || !strings.HasPrefix(string(diff), strings.TrimSuffix(body, "\n")) {
			t.Fatalf("kept %d bytes, not a prefix within the cap", len(body))
		}
		c := &Context{Subject: Subject{Number: 1, ChangedFiles: 1, Files: []github.ChangedFile{{Path: "x"}}}, Diff: got}
		msg, err := c.TaskMessage()
		if err != nil {
			t.Fatal(err)
		}
		if s, d := strings.Index(msg, c.FileSummary()), strings.Index(msg, "**Diff:**"); s < 0 || s > d {
			t.Fatal("the file summary must come before the diff")
		}
	})
}
