// Package martian replays Martian's offline code review benchmark
// (github.com/withmartian/code-review-benchmark, MIT; testdata/README.md)
// through gh-ocdx's aggregation: each tool of the benchmark is a reviewer,
// the benchmark's judge says which golden comment a candidate is, and
// consensus.Distinct, inline.Select and the agreement count decide what
// would be posted (BENCHMARKS.md, Agreement on real reviews). Nothing in
// the product imports it.
package martian

import (
	"encoding/json"
	"fmt"
	"os"
)

// Data is the reduced benchmark that cmd/convert writes: for each PR its
// golden comments and each tool's candidates with the golden comments the
// judge matched them to.
type Data struct {
	Source Source   `json:"source"`
	Tools  []string `json:"tools"`
	PRs    []PR     `json:"prs"`
}

// Source pins where the data came from.
type Source struct {
	Repo    string `json:"repo"`
	Commit  string `json:"commit"`
	License string `json:"license"`
	// Judge is the judge model whose candidates and verdicts these are
	// (results/<Judge>/ in the source repository).
	Judge string `json:"judge"`
	// Golden names the golden comments' files by their git blob ids.
	Golden map[string]string `json:"golden"`
	// Dropped counts the candidates left out, by reason, and Inferred
	// those whose golden comment cmd/convert inferred from the judge's
	// order of comparison.
	Dropped  map[string]int `json:"dropped"`
	Inferred int            `json:"inferred"`
}

// PR is one benchmark PR.
type PR struct {
	URL     string                 `json:"url"`
	Project string                 `json:"project"`
	Golden  []Golden               `json:"golden"`
	Reviews map[string][]Candidate `json:"reviews"` // by tool; a tool absent posted nothing
}

// Golden is a human-verified problem of the PR.
type Golden struct {
	Severity string `json:"severity"` // Low, Medium, High, Critical
	Text     string `json:"text"`
}

// Candidate is one issue the benchmark extracted from a tool's review, and
// the indexes (into PR.Golden) of the golden comments the judge matched it
// to; none: a false positive.
type Candidate struct {
	Text   string `json:"text"`
	Golden []int  `json:"golden,omitempty"`
}

// Projects are the benchmark's projects; Tune the ones any threshold or
// default is chosen on, the others are held out (BENCHMARKS.md, Agreement
// on real reviews).
var (
	Projects = []string{"sentry", "grafana", "cal.com", "discourse", "keycloak"}
	Tune     = []string{"sentry", "grafana", "cal.com"}
)

// Load reads a Data file.
func Load(path string) (*Data, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d Data
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, pr := range d.PRs {
		for tool, cs := range pr.Reviews {
			for _, c := range cs {
				for _, g := range c.Golden {
					if g < 0 || g >= len(pr.Golden) {
						return nil, fmt.Errorf("%s: %s's candidate names golden comment %d of %d", pr.URL, tool, g, len(pr.Golden))
					}
				}
			}
		}
	}
	return &d, nil
}
