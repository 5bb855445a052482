package change

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/posts"
)

func TestTruncateDiff(t *testing.T) {
	small := "diff --git a/x b/x\n+ok\n"
	if got, cut := TruncateDiff([]byte(small), true); got != small || cut {
		t.Errorf("a small complete diff must pass unchanged, got %q cut=%v", got, cut)
	}
	if got, cut := TruncateDiff([]byte(small), false); !cut || !strings.HasSuffix(got, DiffTruncatedNotice) || !strings.HasPrefix(got, small) {
		t.Errorf("an incomplete source must carry the notice: %q", got)
	}

	line := "+ ünïcödé line of the diff that goes on\n"
	big := strings.Repeat(line, 3*DiffLimit/len(line))
	got, cut := TruncateDiff([]byte(big), true)
	if !cut || !strings.HasSuffix(got, "\n"+DiffTruncatedNotice) {
		t.Fatalf("a big diff must end with the notice on its own line")
	}
	body := strings.TrimSuffix(got, DiffTruncatedNotice)
	if len(body) > DiffLimit || !utf8.ValidString(body) || !strings.HasSuffix(body, line) {
		t.Errorf("kept %d bytes, valid UTF-8 %v, ends on a whole line %v", len(body), utf8.ValidString(body), strings.HasSuffix(body, line))
	}

	oneLine := strings.Repeat("é", DiffLimit) // no line break to cut at
	got, _ = TruncateDiff([]byte(oneLine), true)
	if body := strings.TrimSuffix(got, "\n"+DiffTruncatedNotice); !utf8.ValidString(body) || len(body) > DiffLimit {
		t.Errorf("a cut inside a long line must stay valid UTF-8 within the limit")
	}
}

func TestDiffCoverage(t *testing.T) {
	var b strings.Builder
	pr := &github.PullRequest{ChangedFiles: 30}
	for i := range 30 {
		p := fmt.Sprintf("dir with space/f%02d.go", i)
		pr.Files = append(pr.Files, github.ChangedFile{Path: p})
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-%s\n+%s\n", p, p, p, p, strings.Repeat("x", 3000), strings.Repeat("y", 3000))
	}
	text, cut := TruncateDiff([]byte(b.String()), true)
	c := DiffCoverage(OfPR(pr), text, cut, nil)
	if !cut || !c.Sampled() || c.Files != 30 || c.Whole+len(c.Cut)+c.LeftOut != 30 || len(c.Cut) != 1 || c.Cut[0] != fmt.Sprintf("dir with space/f%02d.go", c.Whole) {
		t.Errorf("coverage %+v", c)
	}
	if len(c.LeftOutNames) != min(c.LeftOut, diff.MaxCoverageNames) || c.LeftOutNames[0] != fmt.Sprintf("dir with space/f%02d.go", c.Whole+1) {
		t.Errorf("left out names %v", c.LeftOutNames)
	}
	whole := DiffCoverage(Subject{ChangedFiles: 1, Files: pr.Files[:1]}, "diff --git a/dir with space/f00.go b/dir with space/f00.go\n+x\n", false, nil)
	if whole.Sampled() || whole.Whole != 1 || whole.String() != "the whole diff (1 file)" {
		t.Errorf("whole diff: %+v %q", whole, whole)
	}
	// Submodule pointers moved and renamed are files the reviewers got,
	// named as what they are; none is left out.
	subs := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/lib two b/lib two\nindex 1111111..2222222 160000\n--- a/lib two\n+++ b/lib two\n@@ -1 +1 @@\n-Subproject commit 1111111111111111111111111111111111111111\n+Subproject commit 2222222222222222222222222222222222222222\n" +
		"diff --git a/lib one b/vendor/lib one\nsimilarity index 100%\nrename from lib one\nrename to vendor/lib one\n"
	sub := DiffCoverage(Subject{ChangedFiles: 3, Files: []github.ChangedFile{{Path: "a.txt"}, {Path: "lib two"}, {Path: "vendor/lib one"}}}, subs, false, nil)
	if sub.Sampled() || sub.String() != "the whole diff (3 files), 1 submodule pointer (`lib two`)" {
		t.Errorf("submodules: %+v %q", sub, sub)
	}
}

func TestNewContextLeavesIgnoredDiffsOutAndUncounted(t *testing.T) {
	pr := &github.PullRequest{ChangedFiles: 3, Files: []github.ChangedFile{{Path: "go.sum"}, {Path: "main.go"}, {Path: "vendor/x/y.go"}}}
	var b strings.Builder
	b.WriteString("diff --git a/go.sum b/go.sum\n+" + strings.Repeat("s", 2*DiffLimit) + "\n")
	b.WriteString("diff --git a/main.go b/main.go\n+func main() {}\n")
	b.WriteString("diff --git a/vendor/x/y.go b/vendor/x/y.go\n+" + strings.Repeat("v", DiffLimit) + "\n")

	rc := NewContext(pr, []byte(b.String()), true, nil) // no .ocdx.json: the default globs

	if rc.DiffTruncated || rc.Diff != "diff --git a/main.go b/main.go\n+func main() {}\n" {
		t.Errorf("diff (truncated %v):\n%.300s", rc.DiffTruncated, rc.Diff)
	}
	c := rc.Coverage()
	if c.Sampled() || c.Whole != 1 || c.Ignored != 2 || c.LeftOut != 0 || c.String() != "the whole diff (1 file), 2 files ignored by the ignore globs" {
		t.Errorf("coverage %+v: %s", c, c)
	}
	list := strings.Join(rc.FileList(), "\n")
	if !strings.Contains(list, "go.sum (ignored") || !strings.Contains(list, "vendor/x/y.go (ignored") || strings.Contains(list, "main.go (ignored") {
		t.Errorf("file list:\n%s", list)
	}
}

func TestInstructionsOnlyForMatchingFilesAndCapped(t *testing.T) {
	p := &config.Policy{Instructions: "Wrap errors.", Guide: "# Guide\nName the test.",
		Paths: []config.PathRule{{Glob: "api/**", Instructions: "Check auth."}, {Glob: "web/**", Instructions: "No inline styles."}}}
	files := []github.ChangedFile{{Path: "api/v1/h.go"}, {Path: "main.go"}}
	got := Instructions(p, files)
	want := "Wrap errors.\n\nFrom REVIEW.md:\n\n# Guide\nName the test.\n\nFor the files matching `api/**` (`api/v1/h.go`):\n\nCheck auth."
	if got != want {
		t.Errorf("instructions:\n%s\nwant:\n%s", got, want)
	}
	if Instructions(&config.Policy{Paths: p.Paths}, []github.ChangedFile{{Path: "main.go"}}) != "" {
		t.Error("a path rule no file matches was given")
	}
	long := Instructions(&config.Policy{Guide: strings.Repeat("é", MaxInstructions)}, nil)
	if !strings.HasSuffix(long, InstructionsCutNotice) || len(long) > MaxInstructions+len(InstructionsCutNotice) || !utf8.ValidString(long) {
		t.Errorf("a long guide: %d bytes, ends %q", len(long), long[len(long)-60:])
	}
}

// The task's file summary counts in words: "1 deletion", not "1 deletions".
func TestFileSummaryPlurals(t *testing.T) {
	c := &Context{Subject: Subject{ChangedFiles: 1, Additions: 10, Deletions: 1}}
	if got := c.FileSummary(); got != "1 file changed, 10 insertions, 1 deletion" {
		t.Errorf("FileSummary = %q", got)
	}
}

// gh-ocdx's description in the PR's body (describe --edit-body) is not
// the author's: the task leaves it out and keeps the author's words.
func TestTaskMessageLeavesGhOcdxsDescriptionOut(t *testing.T) {
	pr := &github.PullRequest{Number: 3, Title: "t", Body: "Author's words.\n\n" + posts.BodyStart + "\nThe old description.\n" + posts.BodyEnd}
	msg, err := NewContext(pr, nil, true, &config.Policy{}).TaskMessage()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "Author's words.") || strings.Contains(msg, "The old description.") {
		t.Errorf("task:\n%s", msg)
	}
}
