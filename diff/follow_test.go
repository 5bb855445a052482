package diff

import "testing"

func TestFollowMapsALineThroughTheDiff(t *testing.T) {
	d := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n" +
		"@@ -2,3 +2,5 @@\n ctx2\n+new3\n+new4\n ctx3\n-old4\n+new6\n" +
		"@@ -10,2 +12,1 @@\n ctx10\n-old11\n" +
		"diff --git a/old.go b/moved.go\nsimilarity index 100%\nrename from old.go\nrename to moved.go\n" +
		"diff --git a/top.go b/top.go\n--- a/top.go\n+++ b/top.go\n@@ -0,0 +1,2 @@\n+a\n+b\n" +
		"diff --git a/cut.go b/cut.go\n--- a/cut.go\n+++ b/cut.go\n@@ -1 +0,0 @@\n-a\n" +
		"diff --git a/gone.go b/gone.go\ndeleted file mode 100644\n--- a/gone.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
	files, err := Parse([]byte(d))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path    string
		line    int
		to      string
		at      int
		changed bool
	}{
		{"a.go", 1, "a.go", 1, false},  // before every hunk
		{"a.go", 2, "a.go", 2, false},  // a context line
		{"a.go", 3, "a.go", 5, false},  // moved down by two added lines
		{"a.go", 4, "a.go", 6, true},   // rewritten
		{"a.go", 7, "a.go", 9, false},  // between the hunks
		{"a.go", 11, "a.go", 13, true}, // removed at the end
		{"a.go", 20, "a.go", 21, false},
		{"old.go", 5, "moved.go", 5, false},
		{"gone.go", 1, "", 0, true},
		{"other.go", 8, "other.go", 8, false},
		{"top.go", 1, "top.go", 3, false}, // two lines inserted above
		{"cut.go", 3, "cut.go", 2, false}, // a line removed above
	} {
		to, at, changed := Follow(files, tc.path, tc.line)
		if to != tc.to || at != tc.at || changed != tc.changed {
			t.Errorf("%s:%d → %s:%d changed %t, want %s:%d changed %t", tc.path, tc.line, to, at, changed, tc.to, tc.at, tc.changed)
		}
	}
}
