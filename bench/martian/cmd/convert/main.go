// Command convert writes bench/martian/testdata/martian.json from a copy of
// Martian's offline benchmark (github.com/withmartian/code-review-benchmark):
// the golden comments, one judge's extracted candidates and its verdicts,
// and nothing else. It is run by hand when the pinned commit changes, never
// by the tests or CI:
//
//	git -C CLONE archive COMMIT offline/golden_comments offline/results/JUDGE | tar -x -C SRC
//	go run ./bench/martian/cmd/convert -src SRC/offline -commit COMMIT -judge JUDGE \
//	    -golden-blobs "$(git -C CLONE ls-tree COMMIT offline/golden_comments/)" > bench/martian/testdata/martian.json
//
// The judge (step3_judge_comments.py) compares every candidate with every
// golden comment and keeps, per golden comment, the candidate of highest
// confidence; a candidate that was the best for a while and then beaten is
// neither matched nor false. Its comparisons ran golden by golden in
// candidate order, so such a candidate matched the golden comment whose
// final match comes after it, when only one does; otherwise it is dropped
// (counted in source.dropped; the others in source.inferred). Reviews with no extracted candidate (the
// benchmark then judged the raw trigger comment, "/propel review") are
// empty.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ocdx/gh-ocdx/bench/martian"
)

type goldenFile []struct {
	URL         string `json:"url"`
	OriginalURL string `json:"original_url"`
	Comments    []struct {
		Comment  string `json:"comment"`
		Severity string `json:"severity"`
	} `json:"comments"`
}

type evaluation struct {
	Skipped       bool `json:"skipped"`
	TruePositives []struct {
		Golden    string `json:"golden_comment"`
		Candidate string `json:"matched_candidate"`
	} `json:"true_positives"`
	FalsePositives []struct {
		Candidate string `json:"candidate"`
	} `json:"false_positives"`
	FalseNegatives []struct {
		Golden string `json:"golden_comment"`
	} `json:"false_negatives"`
}

func main() {
	src := flag.String("src", "", "the offline/ directory of the source repository")
	judge := flag.String("judge", "anthropic_claude-opus-4-5-20251101", "results/<judge>/ to read")
	commit := flag.String("commit", "", "the source commit")
	blobs := flag.String("golden-blobs", "", "git ls-tree output of offline/golden_comments/ at the commit")
	flag.Parse()
	if *src == "" || *commit == "" || *blobs == "" {
		flag.Usage()
		os.Exit(2)
	}
	d, err := convert(*src, *judge, *commit, *blobs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "convert:", err)
		os.Exit(1)
	}
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		fmt.Fprintln(os.Stderr, "convert:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "convert:", err)
		os.Exit(1)
	}
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func project(url string) (string, error) {
	for _, p := range martian.Projects {
		if strings.Contains(url, p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no project in %s", url)
}

// candidate is one of a tool's comments as the judge extracted it.
type candidate struct {
	Text string `json:"text"`
}

func convert(src, judge, commit, blobs string) (*martian.Data, error) {
	d := &martian.Data{Source: martian.Source{
		Repo: "withmartian/code-review-benchmark", Commit: commit, License: "MIT", Judge: judge,
		Golden: map[string]string{}, Dropped: map[string]int{},
	}}
	for _, line := range strings.Split(strings.TrimSpace(blobs), "\n") {
		f := strings.Fields(line) // mode type blob path
		if len(f) == 4 {
			d.Source.Golden[f[3]] = f[2]
		}
	}
	golden, err := readGolden(src)
	if err != nil {
		return nil, err
	}
	var cands map[string]map[string][]candidate
	if err := readJSON(filepath.Join(src, "results", judge, "candidates.json"), &cands); err != nil {
		return nil, err
	}
	var evals map[string]map[string]evaluation
	if err := readJSON(filepath.Join(src, "results", judge, "evaluations.json"), &evals); err != nil {
		return nil, err
	}
	tools := map[string]bool{}
	urls := make([]string, 0, len(evals))
	for u := range evals {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		p, err := project(u)
		if err != nil {
			return nil, err
		}
		gs, ok := golden[u]
		if !ok {
			return nil, fmt.Errorf("no golden comments for %s", u)
		}
		pr := martian.PR{URL: u, Project: p, Golden: gs, Reviews: map[string][]martian.Candidate{}}
		for tool, ev := range evals[u] {
			tools[tool] = true
			out, err := review(&d.Source, gs, ev, cands[u][tool])
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", u, tool, err)
			}
			if len(out) > 0 {
				pr.Reviews[tool] = out
			}
		}
		d.PRs = append(d.PRs, pr)
	}
	for t := range tools {
		d.Tools = append(d.Tools, t)
	}
	sort.Strings(d.Tools)
	return d, nil
}

// readGolden reads the golden comments, in their files' order, by the
// PR's URLs (its original URL too).
func readGolden(src string) (map[string][]martian.Golden, error) {
	golden := map[string][]martian.Golden{}
	files, err := filepath.Glob(filepath.Join(src, "golden_comments", "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no golden comments under %s (%v)", src, err)
	}
	for _, path := range files {
		var gf goldenFile
		if err := readJSON(path, &gf); err != nil {
			return nil, err
		}
		for _, pr := range gf {
			var gs []martian.Golden
			for _, c := range pr.Comments {
				gs = append(gs, martian.Golden{Severity: c.Severity, Text: c.Comment})
			}
			golden[pr.URL] = gs
			if pr.OriginalURL != "" {
				golden[pr.OriginalURL] = gs
			}
		}
	}
	return golden, nil
}

// review is one tool's review of a PR whose golden comments are gs, as the
// judge's evaluation ev of its candidates cands decided it: a candidate
// matched, false, or (beaten after it matched) given the golden comment
// whose final match comes after it, when only one does; else dropped,
// and counted in src.
func review(src *martian.Source, gs []martian.Golden, ev evaluation, cands []candidate) ([]martian.Candidate, error) {
	index := func(text string) int {
		return slices.IndexFunc(gs, func(g martian.Golden) bool { return g.Text == text })
	}
	if ev.Skipped {
		return nil, errors.New("skipped")
	}
	for _, fn := range ev.FalseNegatives {
		if index(fn.Golden) < 0 {
			return nil, errors.New("a golden comment not in the golden file")
		}
	}
	// The candidates as the judge saw them: texts, duplicates once.
	var texts []string
	for _, c := range cands {
		if c.Text != "" && !slices.Contains(texts, c.Text) {
			texts = append(texts, c.Text)
		}
	}
	unmatched := map[string]bool{}
	for _, fp := range ev.FalsePositives {
		unmatched[fp.Candidate] = true
	}
	final := map[string][]int{} // candidate → the golden comments it is the best match of
	var finalAt []struct{ golden, at int }
	for _, tp := range ev.TruePositives {
		g := index(tp.Golden)
		if g < 0 {
			return nil, errors.New("a golden comment not in the golden file")
		}
		final[tp.Candidate] = append(final[tp.Candidate], g)
		at := slices.Index(texts, tp.Candidate)
		if at < 0 {
			return nil, errors.New("a matched candidate not among the extracted ones")
		}
		finalAt = append(finalAt, struct{ golden, at int }{g, at})
	}
	var out []martian.Candidate
	for i, t := range texts {
		switch gs, ok := final[t]; {
		case ok:
			slices.Sort(gs)
			out = append(out, martian.Candidate{Text: t, Golden: gs})
		case unmatched[t]:
			out = append(out, martian.Candidate{Text: t})
		default:
			var later []int
			for _, f := range finalAt {
				if f.at > i {
					later = append(later, f.golden)
				}
			}
			if len(later) != 1 {
				src.Dropped["matched, then beaten, golden comment ambiguous"]++
				continue
			}
			src.Inferred++
			out = append(out, martian.Candidate{Text: t, Golden: later})
		}
	}
	return out, nil
}
