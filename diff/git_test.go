package diff_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/diff"
)

// gitRepo is a scratch repository the tests commit to with git itself.
type gitRepo struct {
	t   testing.TB
	dir string
}

func newGitRepo(t testing.TB) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &gitRepo{t: t, dir: t.TempDir()}
	r.git("init", "--quiet", "--initial-branch=main")
	return r
}

// git runs git in the repository and returns its output untouched. No
// commit starts git's automatic maintenance: one more process each.
func (r *gitRepo) git(args ...string) []byte {
	r.t.Helper()
	c := exec.Command("git", append([]string{"-c", "core.autocrlf=false", "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false", "-c", "maintenance.auto=false"}, args...)...)
	c.Dir = r.dir
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_TEMPLATE_DIR=")
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.Bytes())
	}
	return out.Bytes()
}

func (r *gitRepo) write(path, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	os.Remove(p) // a symlink stays one otherwise
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *gitRepo) commit(msg string) string {
	r.add(msg)
	return strings.TrimSpace(string(r.git("rev-parse", "HEAD")))
}

// add commits everything in the work tree on the current branch.
func (r *gitRepo) add(msg string) {
	r.git("add", "-A")
	r.git("commit", "--quiet", "--allow-empty", "-m", msg)
}

// numstat is what git says a diff holds: per file, its path in the new
// version (the old one for a deletion) and its added and removed lines
// (-1 for binary files).
type numstat struct {
	path       string
	adds, dels int
}

func (r *gitRepo) numstat(args ...string) []numstat {
	out := string(r.git(append([]string{"diff", "--numstat", "-z"}, args...)...))
	var ns []numstat
	for out != "" {
		var rec string
		rec, out, _ = strings.Cut(out, "\x00")
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) < 3 {
			r.t.Fatalf("numstat record %q", rec)
		}
		n := numstat{path: parts[2], adds: atoi(parts[0]), dels: atoi(parts[1])}
		if n.path == "" { // a rename: old and new path follow
			_, out, _ = strings.Cut(out, "\x00")
			n.path, out, _ = strings.Cut(out, "\x00")
		}
		ns = append(ns, n)
	}
	return ns
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// blobs reads the blobs of rev:path for each key in one git process.
func (r *gitRepo) blobs(keys []string) map[string][]string {
	r.t.Helper()
	c := exec.Command("git", "cat-file", "--batch")
	c.Dir = r.dir
	c.Stdin = strings.NewReader(strings.Join(keys, "\n") + "\n")
	out, err := c.Output()
	if err != nil {
		r.t.Fatalf("git cat-file --batch: %v", err)
	}
	m := map[string][]string{}
	for _, k := range keys {
		header, rest, _ := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(header))
		if len(f) != 3 {
			r.t.Fatalf("git cat-file --batch on %q: %q", k, header)
		}
		n := atoi(f[2])
		s := strings.TrimSuffix(string(rest[:n]), "\n")
		out = rest[n+1:]
		if s != "" {
			m[k] = strings.Split(s, "\n")
		} else {
			m[k] = nil
		}
	}
	return m
}

// lines is a blob of rev split as a diff numbers it.
func (r *gitRepo) lines(rev, path string) []string {
	return r.blobs([]string{rev + ":" + path})[rev+":"+path]
}

// check parses the diff of old..new (args: git diff's options) and holds it
// against git: the same files as --numstat, the same counts, and every
// line's text at its number in the old and new blobs.
func (r *gitRepo) check(old, new string, args ...string) []*diff.File {
	r.t.Helper()
	var pre []string // -c options go before the verb
	for len(args) > 1 && args[0] == "-c" {
		pre, args = append(pre, args[:2]...), args[2:]
	}
	d := r.git(append(append(append(pre, "diff"), args...), old, new)...)
	files, err := diff.Parse(d)
	if err != nil {
		r.t.Fatal(err)
	}
	var statArgs []string // the options that do not make --numstat a patch
	for _, a := range args {
		if a != "--binary" && !strings.HasPrefix(a, "-U") {
			statArgs = append(statArgs, a)
		}
	}
	stat := r.numstat(append(statArgs, old, new)...)
	var keys []string
	for _, f := range files {
		if f.IsBinary || f.IsSubmodule {
			continue
		}
		if f.OldPath != "" {
			keys = append(keys, old+":"+f.OldPath)
		}
		if f.NewPath != "" {
			keys = append(keys, new+":"+f.NewPath)
		}
	}
	blobs := r.blobs(keys)
	if len(files) != len(stat) {
		r.t.Fatalf("%d files parsed, git --numstat says %d\n%.3000s", len(files), len(stat), d)
	}
	for i, f := range files {
		n := stat[i]
		if f.Path() != n.path {
			r.t.Errorf("file %d: path %q, git says %q", i, f.Path(), n.path)
		}
		if f.Start >= f.End || !bytes.HasPrefix(d[f.Start:f.End], []byte("diff --git ")) {
			r.t.Errorf("%s: its section [%d,%d) does not start at its header", f.Path(), f.Start, f.End)
		}
		if f.Truncated {
			r.t.Errorf("%s: truncated in a whole diff", f.Path())
		}
		if len(f.Hunks) > 0 && !bytes.HasPrefix(d[f.PatchStart:f.End], []byte("@@ -")) {
			r.t.Errorf("%s: its patch does not start at its first hunk: %.40q", f.Path(), d[f.PatchStart:f.End])
		}
		adds, dels := 0, 0
		var oldLines, newLines []string
		text := !f.IsBinary && !f.IsSubmodule
		if text {
			oldLines, newLines = blobs[old+":"+f.OldPath], blobs[new+":"+f.NewPath]
		}
		if (n.adds < 0) != f.IsBinary {
			r.t.Errorf("%s: binary %v, git says %d added lines", f.Path(), f.IsBinary, n.adds)
		}
		for _, h := range f.Hunks {
			o, nw := 0, 0
			for _, l := range h.Lines {
				switch l.Kind {
				case diff.Add:
					adds++
					nw++
				case diff.Del:
					dels++
					o++
				case diff.Context:
					o++
					nw++
				}
				if !text {
					continue
				}
				if l.Kind != diff.Del && (l.New < 1 || l.New > len(newLines) || newLines[l.New-1] != l.Text) {
					r.t.Errorf("%s: new line %d is %q, not the blob's", f.Path(), l.New, l.Text)
				}
				if l.Kind != diff.Add && (l.Old < 1 || l.Old > len(oldLines) || oldLines[l.Old-1] != l.Text) {
					r.t.Errorf("%s: old line %d is %q, not the blob's", f.Path(), l.Old, l.Text)
				}
			}
			if o != h.OldLines || nw != h.NewLines {
				r.t.Errorf("%s: hunk %+v holds %d old and %d new lines", f.Path(), h, o, nw)
			}
		}
		if n.adds >= 0 && (adds != n.adds || dels != n.dels) {
			r.t.Errorf("%s: +%d -%d, git says +%d -%d", f.Path(), adds, dels, n.adds, n.dels)
		}
	}
	return files
}

func byPath(files []*diff.File) map[string]*diff.File {
	m := map[string]*diff.File{}
	for _, f := range files {
		m[f.Path()] = f
	}
	return m
}

func numbered(prefix string, n int, eol string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d%s", prefix, i, eol)
	}
	return b.String()
}

// TestGitDiffs reads diffs git makes of the changes a PR can hold.
func TestGitDiffs(t *testing.T) {
	r := newGitRepo(t)
	r.write("moved.txt", numbered("moved", 30, "\n"))
	r.write("moved and edited.txt", numbered("edited", 30, "\n"))
	r.write("dir with space/f.go", numbered("space", 10, "\n"))
	r.write("café/ünï.txt", numbered("accent", 10, "\n"))
	r.write("tab\tname.txt", "tab\n")
	r.write(`quote"name.txt`, "quote\n")
	r.write("a b/c b/d.txt", "ambiguous\n")
	r.write("crlf.txt", numbered("crlf", 10, "\r\n"))
	r.write("noeol.txt", "one\ntwo")
	r.write("gone.txt", "bye\n")
	r.write("script.sh", "#!/bin/sh\necho hi\n")
	r.write("img.bin", "\x00\x01\x02binary")
	for i := range 300 {
		r.write(fmt.Sprintf("many/f%03d.txt", i), numbered("many", 5, "\n"))
	}
	if err := os.Symlink("moved.txt", filepath.Join(r.dir, "link")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(r.dir, "sub"), 0o755)
	sub := strings.Repeat("1", 40)
	r.git("update-index", "--add", "--cacheinfo", "160000,"+sub+",sub")
	base := r.commit("base")
	r.git("checkout", "--quiet", "-b", "head")

	r.git("mv", "moved.txt", "renamed.txt")
	r.git("mv", "moved and edited.txt", "renamed and edited.txt")
	r.write("renamed and edited.txt", strings.Replace(numbered("edited", 30, "\n"), "edited 15\n", "EDITED 15\n", 1))
	r.write("dir with space/f.go", strings.Replace(numbered("space", 10, "\n"), "space 3\n", "space three\n", 1))
	r.write("café/ünï.txt", numbered("accent", 11, "\n"))
	r.write("tab\tname.txt", "tab\nmore\n")
	r.write(`quote"name.txt`, "quote\nmore\n")
	r.write("a b/c b/d.txt", "ambiguous\nmore\n")
	r.write("crlf.txt", strings.Replace(numbered("crlf", 10, "\r\n"), "crlf 5\r\n", "CRLF 5\r\n", 1))
	r.write("noeol.txt", "one\ntwo\nthree")
	os.Remove(filepath.Join(r.dir, "gone.txt"))
	os.Chmod(filepath.Join(r.dir, "script.sh"), 0o755)
	r.write("img.bin", "\x00\x01\x02binary, changed")
	r.write("new.bin", "\x00new")
	for i := range 300 {
		r.write(fmt.Sprintf("many/f%03d.txt", i), numbered("many", 5, "\n")+"added\n")
	}
	os.Remove(filepath.Join(r.dir, "link"))
	if err := os.Symlink("renamed.txt", filepath.Join(r.dir, "link")); err != nil {
		t.Fatal(err)
	}
	r.git("update-index", "--cacheinfo", "160000,"+strings.Repeat("2", 40)+",sub")
	head := r.commit("head")
	// The base moves past the merge base: GitHub's diff is still against it.
	r.git("checkout", "--quiet", "main")
	r.write("renamed.txt", "the base's own file\n")
	r.write("crlf.txt", "the base rewrote it\n")
	r.commit("base moves")
	mb := strings.TrimSpace(string(r.git("merge-base", "main", "head")))
	if mb != base {
		t.Fatalf("merge base %s, want %s", mb, base)
	}

	for _, args := range [][]string{{"-M"}, {"--no-renames"}, {"-M", "--binary"}, {"-c", "core.quotepath=false", "-M"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r.t = t
			files := r.check(base, head, args...)
			m := byPath(files)
			if slices.Contains(args, "-M") {
				if f := m["renamed.txt"]; f == nil || !f.IsRename || f.OldPath != "moved.txt" || len(f.Hunks) != 0 {
					t.Errorf("a pure rename: %+v", f)
				}
				if f := m["renamed and edited.txt"]; f == nil || !f.IsRename || f.OldPath != "moved and edited.txt" || len(f.Hunks) != 1 {
					t.Errorf("a rename with an edit: %+v", f)
				}
			}
			for _, p := range []string{"dir with space/f.go", "café/ünï.txt", "tab\tname.txt", `quote"name.txt`, "a b/c b/d.txt", "crlf.txt", "noeol.txt", "script.sh", "link", "sub", "img.bin", "new.bin", "many/f299.txt"} {
				if m[p] == nil {
					t.Errorf("%q is not among the files read", p)
				}
			}
			if f := m["gone.txt"]; f == nil || f.NewPath != "" || !f.IsDeleted {
				t.Errorf("a deleted file: %+v", f)
			}
			if f := m["new.bin"]; f == nil || f.OldPath != "" || !f.IsNew || !f.IsBinary {
				t.Errorf("a new binary file: %+v", f)
			}
			if f := m["script.sh"]; f == nil || f.OldMode != "100644" || f.NewMode != "100755" {
				t.Errorf("a mode change: %+v", f)
			}
			if f := m["sub"]; f == nil || !f.IsSubmodule || len(f.Hunks) != 1 || f.Hunks[0].Lines[1].Text != "Subproject commit "+strings.Repeat("2", 40) {
				t.Errorf("a submodule: %+v", f)
			}
			if f := m["crlf.txt"]; f != nil && (len(f.Hunks) != 1 || !strings.HasSuffix(f.Hunks[0].Lines[0].Text, "\r")) {
				t.Errorf("a CRLF file's lines keep their \\r: %+v", f.Hunks)
			}
			if f := m["noeol.txt"]; f != nil {
				ls := f.Hunks[0].Lines
				if len(ls) != 4 || !ls[1].NoNewline || ls[1].Kind != diff.Del || !ls[3].NoNewline || ls[3].Text != "three" {
					t.Errorf("no newline at end of file: %+v", ls)
				}
			}
		})
	}
}

// randomRepo commits a random base and a random PR over it from seed:
// edits, renames with and without edits, deletions, new and binary files.
// They are the branch's two commits: base and head are HEAD~ and HEAD.
func randomRepo(t testing.TB, seed int64) (r *gitRepo, base, head string) {
	rng := rand.New(rand.NewSource(seed))
	r = newGitRepo(t)
	words := []string{"a", "b", "func", "}", "", " x", "--- y", "+++ z", "@@ -1 +1 @@", "\\ no", "diff --git a/q b/q", "é", "\r", "\t"}
	content := func() string {
		var b strings.Builder
		for range rng.Intn(40) {
			for range 1 + rng.Intn(3) {
				b.WriteString(words[rng.Intn(len(words))])
			}
			b.WriteString("\n")
		}
		if rng.Intn(5) == 0 {
			b.WriteString("no newline")
		}
		return b.String()
	}
	names := []string{"a.go", "b c.txt", "d/e.go", "ü.txt", "x\"y", "long name with spaces.md", "z"}
	files := map[string]string{}
	for _, n := range names {
		if rng.Intn(3) > 0 {
			files[n] = content()
			r.write(n, files[n])
		}
	}
	if rng.Intn(2) == 0 {
		r.write("bin", "\x00"+content())
	}
	r.add("base")
	for n, c := range files {
		switch rng.Intn(5) {
		case 0: // edit lines
			ls := strings.Split(c, "\n")
			for range 1 + rng.Intn(4) {
				i := rng.Intn(len(ls))
				switch rng.Intn(3) {
				case 0:
					ls = append(ls[:i], ls[i+1:]...)
				case 1:
					ls = append(ls[:i], append([]string{words[rng.Intn(len(words))]}, ls[i:]...)...)
				default:
					ls[i] = words[rng.Intn(len(words))] + "!"
				}
				if len(ls) == 0 {
					ls = []string{""}
				}
			}
			r.write(n, strings.Join(ls, "\n"))
		case 1: // rename, maybe with an edit
			to := "new " + strings.ReplaceAll(n, "/", "_")
			r.git("mv", n, to)
			if rng.Intn(2) == 0 {
				r.write(to, c+"edit\n")
			}
		case 2:
			os.Remove(filepath.Join(r.dir, n))
		case 3:
			r.write(n, content())
		}
	}
	if rng.Intn(2) == 0 {
		r.write("added "+strconv.Itoa(rng.Intn(100)), content())
	}
	if rng.Intn(3) == 0 {
		r.write("bin", "\x00"+content())
	}
	r.add("head")
	return r, "HEAD~", "HEAD"
}

// TestRandomGitDiffs holds the reader against git on random PRs.
func TestRandomGitDiffs(t *testing.T) {
	n := 20
	if testing.Short() {
		n = 5
	}
	for seed := range int64(n) {
		r, base, head := randomRepo(t, seed)
		r.check(base, head, "-M")
		r.check(base, head, "-M", "--binary", "-U1")
	}
}

// FuzzGitDiff is TestRandomGitDiffs with seeds the fuzzer picks.
func FuzzGitDiff(f *testing.F) {
	f.Add(int64(1000))
	f.Fuzz(func(t *testing.T, seed int64) {
		r, base, head := randomRepo(t, seed)
		r.check(base, head, "-M")
	})
}
