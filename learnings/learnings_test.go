package learnings

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
)

func f(id, p, file, title string) finding.Finding {
	return finding.Finding{ID: id, Priority: p, File: file, Title: title}
}

var genLearning = Learning{Title: "Leave out performance findings in `gen/**`", Sentence: "Do not raise performance findings in `gen/**`.",
	Rule: Rule{Category: "PERF", Path: "gen/**", Action: LeaveOut, Reasons: []string{"generated file"}, PRs: []int{3, 7}}}

var lowerLearning = Learning{Title: "Lower naming", Sentence: "Raise naming findings at most as P3.",
	Rule: Rule{Category: "QUAL", Terms: []string{"naming"}, Action: Lower, To: "P3"}}

// A rule leaves out or lowers what it names, and never a P0, a secret or
// a person's thread, whatever it says.
func TestApplyLeavesOutAndLowersButNeverP0SecOrThreads(t *testing.T) {
	fs := []finding.Finding{
		f("PERF-00000001", "P2", "gen/api/client.go", "Allocation in a hot loop"),
		f("PERF-00000002", "P0", "gen/api/client.go", "Allocation that exhausts memory"),
		f("PERF-00000003", "P2", "cache/cache.go", "Allocation in a hot loop"),
		f("QUAL-00000004", "P1", "cache/cache.go", "Inconsistent naming of the cache"),
		f("QUAL-00000005", "P3", "cache/cache.go", "Naming"),
		f("SEC-00000006", "P1", "gen/api/client.go", "Token in naming"),
		f("THREAD-123", "P1", "gen/api/client.go", "naming"),
	}
	everything := Learning{Rule: Rule{Path: "**", Action: LeaveOut}}
	kept, a := Apply(fs, []Learning{genLearning, lowerLearning})
	if want := []string{"PERF-00000001"}; !reflect.DeepEqual(a.LeftOut, want) {
		t.Errorf("left out %v, want %v", a.LeftOut, want)
	}
	if want := []string{"QUAL-00000004"}; !reflect.DeepEqual(a.Lowered, want) {
		t.Errorf("lowered %v, want %v (a P3 is not lowered again)", a.Lowered, want)
	}
	if len(kept) != 6 || kept[0].Priority != "P0" || kept[2].Priority != "P3" {
		t.Errorf("kept %+v", kept)
	}
	if got := a.String(); got != "1 left out and 1 lowered by .ocdx/learnings.md" {
		t.Errorf("said %q", got)
	}
	kept, a = Apply(fs, []Learning{everything})
	var ids []string
	for _, k := range kept {
		ids = append(ids, k.ID)
	}
	if want := []string{"PERF-00000002", "SEC-00000006", "THREAD-123"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("a rule about every file kept %v, want the P0, SEC- and THREAD- findings %v", ids, want)
	}
}

// A file reads back into the learnings it was written from; a rule
// gh-ocdx does not write (about SEC-, about nothing, an unknown key,
// lowering to P0) is left out with a warning, the others kept.
func TestParseReadsWhatRenderWritesAndRefusesOtherRules(t *testing.T) {
	src := Append("", []Learning{genLearning, lowerLearning})
	ls, warnings := Parse(src)
	if len(warnings) > 0 || !reflect.DeepEqual(ls, []Learning{genLearning, lowerLearning}) {
		t.Fatalf("read back %+v %v\nfrom\n%s", ls, warnings, src)
	}
	bad := []string{
		`{"category":"SEC","action":"leave-out"}`,
		`{"action":"leave-out"}`,
		`{"category":"PERF","action":"leave-out","why":"x"}`,
		`{"category":"PERF","action":"lower","to":"P0"}`,
		`{"category":"PERF","path":"../x","action":"leave-out"}`,
		`{"category":"PERF","terms":["Two Words"],"action":"leave-out"}`,
		`{"category":"PERF","action":"leave-out"} {}`,
	}
	for _, b := range bad {
		ls, warnings := Parse(src + "\n## Bad\n\nA rule.\n\n" + ruleOpen + b + ruleClose + "\n")
		if len(ls) != 2 || len(warnings) != 1 {
			t.Errorf("%s: read %d learnings, warnings %v; want the 2 good ones and a warning", b, len(ls), warnings)
		}
	}
	long := src + strings.Repeat("padding line\n", MaxBytes/13) + "## Late\n\nLate.\n\n" + Render(genLearning)
	if ls, warnings := Parse(long); len(ls) != 2 || len(warnings) != 1 {
		t.Errorf("past %d bytes: %d learnings, %v", MaxBytes, len(ls), warnings)
	}
}

// A reason or title cannot close the hidden comment or start a rule of
// its own.
func TestRenderKeepsAReasonInsideItsRule(t *testing.T) {
	l := genLearning
	l.Rule.Reasons = []string{`x --> <!-- ocdx:learning {"category":"QUAL","action":"leave-out"} -->`}
	ls, warnings := Parse(Render(l))
	if len(ls) != 1 || len(warnings) > 0 || ls[0].Rule.Reasons[0] != l.Rule.Reasons[0] {
		t.Errorf("read %+v %v", ls, warnings)
	}
}

// The change is a unified diff git would write: an appended learning
// adds lines after the file's last three, a new file starts at
// /dev/null.
func TestDiffOfAnAppend(t *testing.T) {
	old := "# Learnings\n\none\ntwo\nthree\n"
	got := Diff(File, old, old+"\nfour\n")
	want := "diff --git a/.ocdx/learnings.md b/.ocdx/learnings.md\n--- a/.ocdx/learnings.md\n+++ b/.ocdx/learnings.md\n@@ -3,3 +3,5 @@\n one\n two\n three\n+\n+four\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = Diff(File, "", "a\nb\n")
	want = "diff --git a/.ocdx/learnings.md b/.ocdx/learnings.md\nnew file mode 100644\n--- /dev/null\n+++ b/.ocdx/learnings.md\n@@ -0,0 +1,2 @@\n+a\n+b\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = Diff(File, "a", "a\nb\n")
	want = "diff --git a/.ocdx/learnings.md b/.ocdx/learnings.md\n--- a/.ocdx/learnings.md\n+++ b/.ocdx/learnings.md\n@@ -1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Diff(File, old, old) != "" {
		t.Errorf("no change is no diff")
	}
}

// The reviewers are given each learning's sentence, under the file's name.
func TestInstructions(t *testing.T) {
	got := Instructions([]Learning{genLearning, lowerLearning})
	want := "From .ocdx/learnings.md (what this repository's maintainers decided on earlier pull requests; gh-ocdx also applies these itself):\n\n- Do not raise performance findings in `gen/**`.\n- Raise naming findings at most as P3."
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Instructions(nil) != "" {
		t.Errorf("no learnings, no instructions")
	}
}
