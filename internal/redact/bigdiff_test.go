package redact

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// plant is a secret line put into a generated diff.
type plant struct {
	line int
	kind string
}

// bigDiff builds a unified diff of about size bytes from the lines of
// ordinary code of the corpus, added, removed and kept, with each secret of
// the corpus planted three times at random lines (fixed seed): as a line
// of its own, at the end of a line of code and in a removed line.
func bigDiff(tb testing.TB, size int) (string, []plant) {
	tb.Helper()
	ordinary, secrets := readCorpus(tb)
	rng := rand.New(rand.NewPCG(27, 3))
	var secretLines []corpusCase
	for _, s := range secrets {
		code := ordinary[rng.IntN(len(ordinary))].line
		secretLines = append(secretLines,
			corpusCase{s.kind, "+" + s.line},
			corpusCase{s.kind, " " + code + " ; " + s.line},
			corpusCase{s.kind, "-" + s.line})
	}
	// Pick the line numbers first, at random over the expected line count.
	avg := 0
	for _, c := range ordinary {
		avg += len(c.line) + 2
	}
	avg /= len(ordinary)
	at := map[int]corpusCase{}
	for _, s := range secretLines {
		for {
			n := rng.IntN(size / avg)
			if _, taken := at[n]; !taken && n%200 >= 4 { // not a file's header
				at[n] = s
				break
			}
		}
	}
	var b strings.Builder
	b.Grow(size + 1<<20)
	var plants []plant
	line, file := 0, 0
	add := func(s string) {
		b.WriteString(s)
		b.WriteByte('\n')
		line++
	}
	for b.Len() < size || len(plants) < len(secretLines) {
		if line%200 == 0 {
			file++
			add(fmt.Sprintf("diff --git a/pkg/f%d.go b/pkg/f%d.go", file, file))
			add("--- a/pkg/f" + fmt.Sprint(file) + ".go")
			add("+++ b/pkg/f" + fmt.Sprint(file) + ".go")
			add(fmt.Sprintf("@@ -%d,120 +%d,130 @@ func f%d() {", line, line, file))
			continue
		}
		if s, ok := at[line]; ok {
			plants = append(plants, plant{line, s.kind})
			add(s.line)
			continue
		}
		add(string("+- "[rng.IntN(3)]) + ordinary[rng.IntN(len(ordinary))].line)
	}
	return strings.TrimSuffix(b.String(), "\n"), plants
}

// TestEveryTokenIsFoundInA20MBDiff: in a 20 MB diff of ordinary code, every
// planted secret is found on its line with its kind, and nothing else is.
// The same secrets are planted at any size, so a default run scans 2 MB:
// 20 MB take six seconds of CPU, a minute under -race. .ci/run scans the
// 20 MB with OCDX_SCALE=full.
func TestEveryTokenIsFoundInA20MBDiff(t *testing.T) {
	size := 2 << 20
	if os.Getenv("OCDX_SCALE") == "full" {
		size = 20 << 20
	}
	diff, plants := bigDiff(t, size)
	want := map[int]string{}
	for _, p := range plants {
		want[p.line] = p.kind
	}
	lines := strings.Split(diff, "\n")
	found := map[int]bool{}
	for _, h := range Find(diff) {
		kind, planted := want[h.Line]
		switch {
		case !planted:
			t.Errorf("false hit %s on line %d: %s", h.Kind, h.Line, lines[h.Line])
		case h.Kind == kind:
			found[h.Line] = true
		}
	}
	for _, p := range plants {
		if !found[p.line] {
			t.Errorf("%s not found on line %d: %s", p.kind, p.line, lines[p.line])
		}
	}
	if len(plants) < 3*50 || len(diff) < size {
		t.Fatalf("the diff holds %d secrets in %d bytes", len(plants), len(diff))
	}
	// Find judges line by line: a smaller diff proves as much as long as
	// it holds every ordinary line of the corpus added, removed and kept.
	held := map[string]bool{}
	for _, l := range lines {
		held[l] = true
	}
	ordinary, _ := readCorpus(t)
	for _, c := range ordinary {
		for _, prefix := range []string{"+", "-", " "} {
			if !held[prefix+c.line] {
				t.Errorf("the diff never holds the ordinary line %q", prefix+c.line)
			}
		}
	}
}

// BenchmarkFind20MBDiff scans a 20 MB diff holding every secret of the
// corpus three times, as the loop's secret scan does.
//
//	go test -run '^$' -bench Find20MB -benchmem ./internal/redact
func BenchmarkFind20MBDiff(b *testing.B) {
	diff, plants := bigDiff(b, 20<<20)
	b.SetBytes(int64(len(diff)))
	for b.Loop() {
		if hits := Find(diff); len(hits) < len(plants) {
			b.Fatalf("%d hits for %d secrets", len(hits), len(plants))
		}
	}
}
