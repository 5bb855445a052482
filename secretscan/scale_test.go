package secretscan

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// tokenLines are the token formats of internal/redact's tests, each on an
// added line as code would hold it.
var tokenLines = []string{
	`const key = "AKIAIOSFODNN7EXAMPLE" // oops`,
	`const key = "ASIAIOSFODNN7EXAMPLE" // oops`,
	`const key = "xoxb-123456789012-abcdefABCDEF" // oops`,
	`const key = "xoxp-1-2-3-abc" // oops`,
	`const key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789" // oops`,
	`const key = "BEGIN PRIVATE KEY" // oops`,
	`const key = "gho_abcdefghijklmnopqrstuvwxyz0123456789" // oops`,
	`const key = "ghu_abcdefghijklmnopqrstuvwxyz0123456789" // oops`,
	`const key = "ghs_abcdefghijklmnopqrstuvwxyz0123456789" // oops`,
	`const key = "ghr_abcdefghijklmnopqrstuvwxyz0123456789" // oops`,
	`const key = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz" // oops`,
	`const key = "sk-proj-abcdefghijklmnopqrstuvwx" // oops`,
	`const key = "ghp_abcd1234" // oops`,
	`const key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc" // oops`,
	`const key = "rk_live_4eC39HqLyjWDarjtT1zdp7dc" // oops`,
	`const key = "npm_abcdefghijklmnopqrstuvwxyz0123456789" // oops`,
	`const key = "xoxe-1-abcdefghijklmnop" // oops`,
	`const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz" // oops`,
	`DB_PASSWORD=hunter2hunter2`,
	`  password: "c0rrect-h0rse"`,
	`{"token": "abcdEFGH1234"}`,
	`API_KEY='abcdEFGH1234'`,
	`    oauth_token: 0123456789abcdef0123456789abcdef01234567`,
	`"key": "BEGIN RSA PRIVATE KEY MIIEowIBAAKCAQEA"`,
	`-----BEGIN OPENSSH PRIVATE KEY-----`,
}

// planted is where a token line went in a generated diff.
type planted struct {
	file string
	line int
}

// bigDiff writes a diff of about size bytes of added code in files of
// 100 KB, with each of tokens on an added line at a random place; it
// returns where they went.
func bigDiff(w io.Writer, size int, tokens []string, rng *rand.Rand) map[string]planted {
	const fileSize, lineSize = 100 << 10, 48
	files := size / fileSize
	perFile := fileSize / lineSize
	at := map[[2]int]string{}
	where := map[string]planted{}
	for _, tok := range tokens {
		for {
			k := [2]int{rng.Intn(files), 1 + rng.Intn(perFile)}
			if at[k] == "" {
				at[k] = tok
				where[tok] = planted{fmt.Sprintf("src/gen%04d.go", k[0]), k[1]}
				break
			}
		}
	}
	for f := range files {
		name := fmt.Sprintf("src/gen%04d.go", f)
		fmt.Fprintf(w, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", name, name, name, perFile)
		for n := 1; n <= perFile; n++ {
			if tok := at[[2]int{f, n}]; tok != "" {
				fmt.Fprintf(w, "+%s\n", tok)
				continue
			}
			fmt.Fprintf(w, "+\tv%06d := compute(%08d, \"row of code\")\n", n, f*perFile+n)
		}
	}
	return where
}

// TestSecretScanCoversA20MBDiff: every token format the redaction tests use
// is found wherever it is in a 20 MB diff, on its file and line.
func TestSecretScanCoversA20MBDiff(t *testing.T) {
	if testing.Short() {
		t.Skip("20 MB of diff")
	}
	var tokens []string
	for _, l := range tokenLines {
		// What the rules find on a line alone, the scan must find anywhere.
		if len(redact.Find("+"+l)) > 0 {
			tokens = append(tokens, l)
		}
	}
	if len(tokens) < len(tokenLines)/2 {
		t.Fatalf("the rules find only %d of the %d token lines alone: this test would prove little", len(tokens), len(tokenLines))
	}
	var b strings.Builder
	where := bigDiff(&b, 20<<20, tokens, rand.New(rand.NewSource(27)))
	if b.Len() < 20_000_000 {
		t.Fatalf("the diff is %d bytes", b.Len())
	}
	got, err := Findings(strings.NewReader(b.String()), "now")
	if err != nil {
		t.Fatal(err)
	}
	found := map[planted]bool{}
	for _, f := range got {
		found[planted{f.File, *f.Line}] = true
	}
	for _, tok := range tokens {
		if p := where[tok]; !found[p] {
			t.Errorf("%q at %s:%d was not found", tok, p.file, p.line)
		}
	}
	if len(got) != len(found) || len(found) != len(tokens) {
		t.Errorf("%d findings at %d places for %d planted tokens", len(got), len(found), len(tokens))
	}
}

// BenchmarkSecretScan20MB scans a 20 MB diff as it streams in: the time and
// the memory the scan allocates (the diff is made before the clock starts).
func BenchmarkSecretScan20MB(b *testing.B) {
	var d bytes.Buffer
	bigDiff(&d, 20<<20, tokenLines[:5], rand.New(rand.NewSource(1)))
	b.SetBytes(int64(d.Len()))
	b.ReportAllocs()
	// The heap in use above what it was before the scans, sampled, with
	// the collector kept close: about what the scan holds at once.
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base, peak := m.HeapInuse, uint64(0)
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse-min(base, m.HeapInuse))
			}
		}
	}()
	for b.Loop() {
		fs, err := Findings(bytes.NewReader(d.Bytes()), "now")
		if err != nil || len(fs) != 5 {
			b.Fatalf("%d findings, %v", len(fs), err)
		}
	}
	close(done)
	<-sampled
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// historyRepo250 writes a repository whose branch feature holds 250
// commits on top of main making a diff of about size bytes: commit i adds
// src/gen%04d.go (size/250 bytes of code) and rewrites the first 20 lines
// of the file commit i-1 added, so the history adds lines the PR's result
// does not hold. tokens go on lines of the result; one more token is
// added by commit 100 and removed by commit 101. It returns the
// directory, the base and the head.
func historyRepo250(b *testing.B, size int, tokens []string) (dir, base, head string) {
	b.Helper()
	const commits, lineSize = 250, 48
	perFile := size / commits / lineSize
	dir = b.TempDir()
	testkit.Git(b, dir, "init", "--quiet", "--initial-branch=main")
	var s bytes.Buffer
	rng := rand.New(rand.NewSource(2))
	file := func(i int, rewritten bool) string {
		var f strings.Builder
		for n := 1; n <= perFile; n++ {
			switch {
			case rewritten && n <= 20:
				fmt.Fprintf(&f, "\tw%06d := rework(%08d, \"rewritten\")\n", n, i*perFile+n)
			case n == 30 && i%50 == 0 && len(tokens) > i/50:
				fmt.Fprintf(&f, "%s\n", tokens[i/50])
			default:
				fmt.Fprintf(&f, "\tv%06d := compute(%08d, \"row of code\")\n", n, i*perFile+n)
			}
		}
		if i == 100 {
			f.WriteString(`const key = "ghp_hist0ryhist0ryhist0ryhist0ryhist0ry1" // oops` + "\n")
		}
		return f.String()
	}
	blob := func(path, content string) {
		fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
	}
	fmt.Fprintf(&s, "commit refs/heads/main\ncommitter t <t@e> 1 +0000\ndata 4\nbase\n")
	blob("README.md", "# r\n")
	for i := range commits {
		fmt.Fprintf(&s, "commit refs/heads/feature\ncommitter t <t@e> %d +0000\ndata 9\nchange %02d\n", 2+i, rng.Intn(100))
		if i == 0 {
			fmt.Fprintf(&s, "from refs/heads/main\n")
		}
		blob(fmt.Sprintf("src/gen%04d.go", i), file(i, false))
		if i > 0 {
			c := file(i-1, true)
			if i-1 == 100 { // the token goes again
				c = strings.TrimSuffix(c, `const key = "ghp_hist0ryhist0ryhist0ryhist0ryhist0ry1" // oops`+"\n")
			}
			blob(fmt.Sprintf("src/gen%04d.go", i-1), c)
		}
	}
	c := exec.Command("git", "fast-import", "--quiet")
	c.Dir, c.Stdin = dir, &s
	if out, err := c.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v %s", err, out)
	}
	return dir, testkit.Git(b, dir, "rev-parse", "main"), testkit.Git(b, dir, "rev-parse", "feature")
}

// BenchmarkSecretScanHistory250Commits20MB is the secret scan of a PR of
// 250 commits whose diff is 20 MB (historyRepo250), read from the
// checkout as review-loop reads it: net-diff is the PR's diff alone
// (git diff streamed through the scan, as before the history was read),
// with-history adds the history scan (git log -p and the commits' raw
// objects). The ratio of the two is the history's cost.
//
//	go test -run '^$' -bench SecretScanHistory -benchtime 5x ./secretscan
func BenchmarkSecretScanHistory250Commits20MB(b *testing.B) {
	dir, base, head := historyRepo250(b, 20<<20, tokenLines[:5])
	ctx := context.Background()
	g, err := git.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	net := func() Scan {
		d, ok := g.OpenPRDiff(ctx, base, head)
		if !ok {
			b.Fatal("no diff")
		}
		s, err := Diff(d, "now", nil)
		if cerr := d.Close(); err != nil || cerr != nil {
			b.Fatal(err, cerr)
		}
		return s
	}
	if s := net(); len(s.Findings) != 5 || s.Added["src/gen0000.go"] == 0 {
		b.Fatalf("%d findings", len(s.Findings))
	}
	b.Run("net-diff", func(b *testing.B) {
		cpu := cpuTime()
		for b.Loop() {
			net()
		}
		b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
	b.Run("with-history", func(b *testing.B) {
		cpu := cpuTime()
		for b.Loop() {
			s, read, herr, err := WithHistory(ctx, g, base, head, "now", func() (Scan, error) { return net(), nil })
			if !read || herr != nil || err != nil || s.History != 250 || len(s.Findings) != 6 {
				b.Fatalf("%v %v %v: %d commits, %d findings", read, herr, err, s.History, len(s.Findings))
			}
		}
		b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
}
