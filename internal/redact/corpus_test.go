package redact

import (
	"os"
	"strings"
	"testing"
)

// corpusCase is one line of the labelled corpus: kind is empty for
// ordinary code, which must give no hit.
type corpusCase struct{ kind, line string }

// readCorpus reads testdata/corpus: ordinary.txt, one line of code each,
// and secrets.txt, a kind and a line separated by a tab ("#" starts a
// comment there).
func readCorpus(t testing.TB) (ordinary, secrets []corpusCase) {
	t.Helper()
	b, err := os.ReadFile("testdata/corpus/ordinary.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		ordinary = append(ordinary, corpusCase{"", l})
	}
	b, err = os.ReadFile("testdata/corpus/secrets.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		kind, line, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("secrets.txt: no tab in %q", l)
		}
		secrets = append(secrets, corpusCase{kind, line})
	}
	return ordinary, secrets
}

// TestCorpusOfOrdinaryCodeAndSecrets: key names, identifiers, fixtures and
// placeholders give no hit (the scan must not cry wolf: each hit is a P0
// finding that blocks convergence), and every secret of the corpus is found
// with its kind. It logs precision and recall over the lines.
func TestCorpusOfOrdinaryCodeAndSecrets(t *testing.T) {
	ordinary, secrets := readCorpus(t)
	if len(ordinary) < 150 || len(secrets) < 50 {
		t.Fatalf("corpus too small: %d ordinary lines, %d secrets", len(ordinary), len(secrets))
	}
	fp, tp := 0, 0
	for _, c := range ordinary {
		if hits := Find(c.line); len(hits) > 0 {
			fp++
			t.Errorf("ordinary code found as %s: %s", hits[0].Kind, c.line)
		}
	}
	for _, c := range secrets {
		hits := Find(c.line)
		found := false
		for _, h := range hits {
			found = found || h.Kind == c.kind
		}
		if found {
			tp++
			continue
		}
		t.Errorf("%s not found (hits %+v): %s", c.kind, hits, c.line)
	}
	fn := len(secrets) - tp
	precision := 1.0
	if tp+fp > 0 {
		precision = float64(tp) / float64(tp+fp)
	}
	t.Logf("corpus: %d ordinary lines, %d secrets; false hits %d, missed %d; precision %.3f, recall %.3f",
		len(ordinary), len(secrets), fp, fn, precision, float64(tp)/float64(len(secrets)))
}
