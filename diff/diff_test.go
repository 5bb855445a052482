package diff_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/github"
)

// consistent checks what any parse must hold: each hunk's lines number on
// from its header, and never more than it announced.
func consistent(t *testing.T, files []*diff.File) {
	t.Helper()
	for _, f := range files {
		for _, h := range f.Hunks {
			o, n := h.OldStart, h.NewStart
			oc, nc := 0, 0
			for _, l := range h.Lines {
				switch l.Kind {
				case diff.Add:
					if l.New != n || l.Old != 0 {
						t.Fatalf("%s: added line numbered %d/%d, want new %d", f.Path(), l.Old, l.New, n)
					}
					n++
					nc++
				case diff.Del:
					if l.Old != o || l.New != 0 {
						t.Fatalf("%s: removed line numbered %d/%d, want old %d", f.Path(), l.Old, l.New, o)
					}
					o++
					oc++
				case diff.Context:
					if l.Old != o || l.New != n {
						t.Fatalf("%s: context line numbered %d/%d, want %d/%d", f.Path(), l.Old, l.New, o, n)
					}
					o++
					n++
					oc++
					nc++
				default:
					t.Fatalf("%s: line of kind %q", f.Path(), l.Kind)
				}
			}
			if oc > h.OldLines || nc > h.NewLines {
				t.Fatalf("%s: hunk %+v holds %d old and %d new lines", f.Path(), h, oc, nc)
			}
		}
		if f.End < f.Start {
			t.Fatalf("%s: section [%d,%d)", f.Path(), f.Start, f.End)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,2 +1,3 @@\n x\n-y\n+z\n+w\n\\ No newline at end of file\n",
		"diff --git \"a/\\303\\251 x\" \"b/\\303\\251 x\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/\\303\\251 x\"\t\n@@ -0,0 +1 @@\n+a\r\n",
		"diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\nGIT binary patch\nliteral 3\nabc\n\n",
		"--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n--- c\n+++ c\n@@ -5,0 +6 @@ f\n+c\n",
		"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,9 +1,9 @@\n x\n", // cut short
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		files, err := diff.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		consistent(t, files)
		var walked int
		if err := diff.Walk(bytes.NewReader(b), diff.Visitor{File: func(*diff.File) error { walked++; return nil }}); err != nil || walked != len(files) {
			t.Fatalf("Walk saw %d files (%v), Parse %d", walked, err, len(files))
		}
		d := diff.Index(files)
		for _, f := range files {
			for _, h := range f.Hunks {
				for _, l := range h.Lines {
					if l.Kind != diff.Del {
						if _, ok := d.Anchor(f.Path(), 0, l.New, ""); !ok {
							t.Fatalf("%s: line %d of the new version is in a hunk but does not anchor", f.Path(), l.New)
						}
					}
				}
			}
		}
	})
}

// A diff read only in part (cut at any byte) gives the files whose header
// arrived, each line as the whole diff has it, the last file Truncated.
func TestCutDiff(t *testing.T) {
	r := newGitRepo(t)
	for i := range 5 {
		r.write(fmt.Sprintf("f%d.txt", i), numbered("line", 40, "\n"))
	}
	base := r.commit("base")
	for i := range 5 {
		r.write(fmt.Sprintf("f%d.txt", i), strings.Replace(numbered("line", 40, "\n"), "line 20\n", "changed\n", 1)+"more\n")
	}
	head := r.commit("head")
	whole := r.git("diff", base, head)
	all, _ := diff.Parse(whole)
	for cut := 0; cut < len(whole); cut += 7 {
		files, _ := diff.Parse(whole[:cut])
		if want := bytes.Count(whole[:cut], []byte("diff --git ")); len(files) != want {
			t.Fatalf("cut at %d: %d files, want %d", cut, len(files), want)
		}
		for i, f := range files {
			w := all[i]
			last := i == len(files)-1
			if f.Path() != w.Path() && (!last || len(f.Hunks) > 0) { // a header cut short has part of a name
				t.Fatalf("cut at %d: file %d is %q, want %q", cut, i, f.Path(), w.Path())
			}
			for j, h := range f.Hunks {
				for k, l := range h.Lines {
					wl := w.Hunks[j].Lines[k]
					if l.Kind != wl.Kind || l.Old != wl.Old || l.New != wl.New || !strings.HasPrefix(wl.Text, l.Text) {
						t.Fatalf("cut at %d: %s line %+v, the whole diff has %+v", cut, f.Path(), l, wl)
					}
				}
			}
			if n := len(f.Hunks); last && n > 0 && len(f.Hunks[n-1].Lines) < len(w.Hunks[n-1].Lines) && !f.Truncated {
				t.Fatalf("cut at %d: %s's last hunk has %d of its %d lines and is not Truncated", cut, f.Path(), len(f.Hunks[n-1].Lines), len(w.Hunks[n-1].Lines))
			}
			if f.Truncated && !last {
				t.Fatalf("cut at %d: file %d of %d truncated", cut, i, len(files))
			}
		}
	}
}

// The files endpoint's patches, rebuilt as github.FilePatch does after a
// 406, read as git's diff would.
func TestFilesEndpointDiff(t *testing.T) {
	var b strings.Builder
	for _, p := range []github.FilePatch{
		{Filename: "a b/c.go", Status: "modified", Patch: "@@ -1,2 +1,2 @@\n x\n-y\n+z"},
		{Filename: "new.go", PreviousFilename: "old.go", Status: "renamed", Patch: "@@ -3 +3,2 @@ func f()\n a\n+b\n\\ No newline at end of file"},
		{Filename: "img.png", Status: "added"},
		{Filename: "gone.go", Status: "removed", Patch: "@@ -1 +0,0 @@\n-bye"},
		{Filename: "new dir/b c.go", PreviousFilename: "old dir/b c.go", Status: "renamed"},
		{Filename: "x\n+++ b/evil\n@@ -0,0 +1 @@\n+injected", Status: "added", Patch: "@@ -0,0 +1 @@\n+ok"},
	} {
		b.WriteString(p.Unified())
	}
	files, err := diff.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	consistent(t, files)
	if len(files) != 6 {
		t.Fatalf("%d files, want 6", len(files))
	}
	if f := files[0]; f.Path() != "a b/c.go" || len(f.Hunks) != 1 || f.Hunks[0].Lines[2].New != 2 || f.Hunks[0].Lines[2].Text != "z" {
		t.Errorf("a modified file: %+v", f)
	}
	if f := files[1]; f.OldPath != "old.go" || f.NewPath != "new.go" || !f.IsRename || f.Hunks[0].Lines[1].New != 4 || !f.Hunks[0].Lines[1].NoNewline {
		t.Errorf("a renamed file: %+v", f)
	}
	if f := files[2]; f.Path() != "img.png" || len(f.Hunks) != 0 {
		t.Errorf("a file without a patch: %+v", f)
	}
	if f := files[3]; f.Path() != "gone.go" || f.NewPath != "" || f.Hunks[0].Lines[0].Old != 1 {
		t.Errorf("a removed file: %+v", f)
	}
	if f := files[4]; f.OldPath != "old dir/b c.go" || f.NewPath != "new dir/b c.go" || !f.IsRename {
		t.Errorf("a renamed file without a patch, spaces in its names: %+v", f)
	}
	if f := files[5]; f.NewPath != "x\n+++ b/evil\n@@ -0,0 +1 @@\n+injected" || f.OldPath != "" || len(f.Hunks) != 1 || f.Hunks[0].Lines[0].Text != "ok" {
		t.Errorf("a name that holds diff lines: %+v", f)
	}
}

// The anchor rule on a diff git made: every added or context line anchors
// on its number in the PR's version (RIGHT); every other line of the PR's
// version does not anchor (its finding goes to the review body), even when
// a removed line has its number; a removed line anchors LEFT by its base
// number only when LEFT is asked.
func TestAnchorRule(t *testing.T) {
	r := newGitRepo(t)
	r.write("a.go", numbered("line", 60, "\n"))
	r.write("gone.go", numbered("gone", 3, "\n"))
	base := r.commit("base")
	ls := strings.Split(numbered("line", 60, "\n"), "\n")
	ls = append(ls[:10], ls[14:]...)                                    // lines 11–14 removed
	ls = append(ls[:40], append([]string{"new", "new"}, ls[40:]...)...) // two added after line 44
	r.write("a.go", strings.Join(ls, "\n"))
	os.Remove(filepath.Join(r.dir, "gone.go"))
	head := r.commit("head")
	files := r.check(base, head)
	d := diff.Index(files)
	newLines, removed := map[int]bool{}, map[int]bool{}
	for _, h := range files[0].Hunks {
		for _, l := range h.Lines {
			if l.Kind == diff.Del {
				removed[l.Old] = true
			} else {
				newLines[l.New] = true
			}
		}
	}
	for n := 1; n <= len(r.lines(head, "a.go")); n++ {
		side, ok := d.Anchor("a.go", 0, n, "")
		if ok != newLines[n] || (ok && side != diff.Right) {
			t.Errorf("a.go:%d (in a hunk: %v): anchored %q %v", n, newLines[n], side, ok)
		}
	}
	for n := range removed {
		if side, ok := d.Anchor("a.go", 0, n, diff.Left); !ok || side != diff.Left {
			t.Errorf("removed line %d, asked LEFT: %q %v", n, side, ok)
		}
	}
	// gone.go's lines exist only as removed lines of the base.
	for n := 1; n <= 3; n++ {
		if _, ok := d.Anchor("gone.go", 0, n, ""); ok {
			t.Errorf("gone.go:%d anchored without LEFT asked", n)
		}
		if side, ok := d.Anchor("gone.go", 0, n, diff.Left); !ok || side != diff.Left {
			t.Errorf("gone.go:%d, asked LEFT: %q %v", n, side, ok)
		}
	}
	if _, ok := d.Anchor("a.go", 40, 43, ""); !ok {
		t.Error("a range of added and context lines in one hunk does not anchor")
	}
	if _, ok := d.Anchor("a.go", 5, 43, ""); ok {
		t.Error("a range across two hunks anchored")
	}
}

// Walk stops at the visitor's error and reports a reader's.
func TestWalkErrors(t *testing.T) {
	stop := errors.New("stop")
	err := diff.Walk(strings.NewReader("diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n"), diff.Visitor{
		Line: func(*diff.File, diff.Line) error { return stop }})
	if !errors.Is(err, stop) {
		t.Errorf("visitor's error: got %v", err)
	}
	broken := io.MultiReader(strings.NewReader("diff --git a/a b/a\n"), iotest{})
	if err := diff.Walk(broken, diff.Visitor{}); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Errorf("reader's error: got %v", err)
	}
}

type iotest struct{}

func (iotest) Read([]byte) (int, error) { return 0, errors.New("connection reset") }
