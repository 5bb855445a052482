package localchange

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// BenchmarkReadChange is what a local review (gh ocdx review) reads of the
// repository before any model call, on a branch that changes 3 of its
// files, with one more edited and one untracked in the working tree: in a
// repository of 500 files and in one of 50,000 (100 to a directory).
//
//	go test -run '^$' -bench ReadChange -benchtime 10x ./localchange/
func BenchmarkReadChange(b *testing.B) {
	testkit.UseGitIdentity()
	for _, n := range []int{500, 50000} {
		dir := testkit.InitRepo(b)
		for i := range n {
			p := filepath.Join(dir, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%03d.go", i%100))
			if i%100 == 0 {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					b.Fatal(err)
				}
			}
			if err := os.WriteFile(p, []byte(fmt.Sprintf("package d\n\nconst F%d = %d\n", i, i)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		testkit.Git(b, dir, "add", "-A")
		testkit.Git(b, dir, "commit", "--quiet", "-m", "base")
		testkit.Git(b, dir, "checkout", "--quiet", "-b", "feature")
		testkit.WriteFiles(b, dir, map[string]string{"d000/f001.go": "package d\n\nconst F1 = 10\n", "d001/f002.go": "package d\n\nconst F102 = 20\n", "new.go": "package d\n"})
		testkit.Git(b, dir, "add", "-A")
		testkit.Git(b, dir, "commit", "--quiet", "-m", "change")
		testkit.WriteFiles(b, dir, map[string]string{"d002/f003.go": "package d\n\nconst F203 = 30\n", "notes.txt": "untracked\n"})
		ctx := context.Background()
		g, err := git.Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%d-files", n), func(b *testing.B) {
			for b.Loop() {
				ch, err := ReadChange(ctx, g, "feature", "main")
				if err != nil || len(ch.Files) != 4 || len(ch.Untracked) != 1 {
					b.Fatalf("%v: %+v", err, ch)
				}
			}
		})
	}
}
