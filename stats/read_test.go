package stats

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/github"
)

// pages is a repository's pull requests on a fake GitHub, none reviewed:
// updated[i] is PR i+1's updatedAt; pages are served the most recently
// updated first, and counted.
type pages struct {
	updated []time.Time
	asked   int
}

func (p *pages) ReviewedPRs(_ context.Context, _ github.Repo, first int, after string) (github.ReviewedPage, error) {
	p.asked++
	order := make([]int, len(p.updated))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return p.updated[b].Compare(p.updated[a]) })
	start, _ := strconv.Atoi(after)
	end := min(start+first, len(order))
	var page github.ReviewedPage
	for _, i := range order[start:end] {
		page.PRs = append(page.PRs, github.ReviewedPR{PullRequest: &github.PullRequest{Number: i + 1}, UpdatedAt: p.updated[i].Format(time.RFC3339)})
	}
	if end < len(order) {
		page.Next = strconv.Itoa(end)
	}
	return page, nil
}

func (p *pages) Permission(context.Context, github.Repo, string) (github.Permission, error) {
	return github.PermNone, nil
}

type memCache map[string][]byte

func (m memCache) ReviewedOf(host, owner, repo string) ([]byte, error) {
	return m[owner+"/"+repo], nil
}

func (m memCache) SetReviewed(host, owner, repo string, r []byte) error {
	m[owner+"/"+repo] = r
	return nil
}

func numbers(prs []ReviewedPR) string {
	var ns []int
	for _, p := range prs {
		ns = append(ns, p.Number)
	}
	return fmt.Sprint(ns)
}

// The cache serves a run only as far back as it read: a larger --limit,
// or an earlier --since, than the run that filled it reads GitHub again;
// within what it read, a run asks only for what was updated since.
func TestReadUsesTheCacheOnlyAsFarBackAsItRead(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	gh := &pages{}
	for i := range 40 {
		gh.updated = append(gh.updated, t0.Add(time.Duration(i)*time.Hour)) // PR 40 the newest
	}
	cache := memCache{}
	read := func(limit int, since time.Time) Result {
		t.Helper()
		gh.asked = 0
		res, err := Read(t.Context(), Options{Repo: github.Repo{Owner: "o", Name: "r"}, GitHub: gh, Cache: cache, Limit: limit, Since: since, PageSize: 10})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	if r := read(5, time.Time{}); numbers(r.PRs) != "[40 39 38 37 36]" || gh.asked != 1 {
		t.Fatalf("--limit 5: %s in %d pages", numbers(r.PRs), gh.asked)
	}
	// The cache holds 5: 12 are read from GitHub, 2 pages.
	if r := read(12, time.Time{}); len(r.PRs) != 12 || r.Cached != 0 || gh.asked != 2 {
		t.Errorf("--limit 12 after --limit 5: %d PRs, %d from the cache, %d pages; want 12, 0, 2", len(r.PRs), r.Cached, gh.asked)
	}
	// PR 3 is updated: the first page's first PR is new, its second is not.
	gh.updated[2] = t0.Add(100 * time.Hour)
	r := read(12, time.Time{})
	if numbers(r.PRs) != "[3 40 39 38 37 36 35 34 33 32 31 30]" || r.Cached != 11 || gh.asked != 1 {
		t.Errorf("after PR 3 was updated: %s, %d from the cache, %d pages; want PR 3 then 40…30, 11 from the cache, 1 page", numbers(r.PRs), r.Cached, gh.asked)
	}
	// --since earlier than the cache reaches (it holds PRs updated since
	// hour 29): GitHub again, to hour 20.
	if r := read(100, t0.Add(20*time.Hour)); len(r.PRs) != 21 || r.Cached != 0 || gh.asked != 3 {
		t.Errorf("--since hour 20: %d PRs, %d from the cache, %d pages; want 21, 0, 3", len(r.PRs), r.Cached, gh.asked)
	}
	// Now it reaches hour 20: a later --since is served from it.
	if r := read(100, t0.Add(25*time.Hour)); len(r.PRs) != 16 || gh.asked != 1 {
		t.Errorf("--since hour 25 after hour 20: %d PRs in %d pages; want 16 (PR 3 and hours 25…39) in 1", len(r.PRs), gh.asked)
	}
}

// A record the cache keeps that this version cannot read is read again
// from GitHub, never an error; the fresh read replaces it.
func TestADamagedCacheIsReadAgain(t *testing.T) {
	gh := &pages{updated: []time.Time{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	cache := memCache{"o/r": []byte(`{"prs": "not a list"}`)}
	res, err := Read(t.Context(), Options{Repo: github.Repo{Owner: "o", Name: "r"}, GitHub: gh, Cache: cache, Limit: 10, PageSize: 10})
	if err != nil || numbers(res.PRs) != "[1]" || res.Cached != 0 || gh.asked != 1 {
		t.Fatalf("read %s, %d from the cache, %d pages, %v", numbers(res.PRs), res.Cached, gh.asked, err)
	}
	var kept Reviewed
	if err := json.Unmarshal(cache["o/r"], &kept); err != nil || len(kept.PRs) != 1 {
		t.Errorf("kept %s, %v", cache["o/r"], err)
	}
}

// A cache written before it kept the pull requests' authors (0), or
// whose reply a concession answered (1), is read again: gh ocdx learn
// would take every dismissal in it for one whose author it cannot tell,
// and every concession for one to nobody.
func TestReadRereadsACacheOfAnotherVersion(t *testing.T) {
	for _, v := range []int{0, 1} {
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		gh := &pages{updated: []time.Time{t0, t0.Add(time.Hour)}}
		old, _ := json.Marshal(Reviewed{V: v, Newest: t0.Add(time.Hour).Format(time.RFC3339), Through: t0.Format(time.RFC3339), Complete: true,
			PRs: []ReviewedPR{{Number: 2, Updated: t0.Add(time.Hour).Format(time.RFC3339)}, {Number: 1, Updated: t0.Format(time.RFC3339)}}})
		cache := memCache{"o/r": old}
		res, err := Read(t.Context(), Options{Repo: github.Repo{Owner: "o", Name: "r"}, GitHub: gh, Cache: cache, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var now Reviewed
		json.Unmarshal(cache["o/r"], &now)
		if res.Cached != 0 || len(res.PRs) != 2 || now.V != readVersion {
			t.Errorf("version %d: %d PRs, %d from the old cache, the cache now of version %d; want 2 read again, a cache of version %d", v, len(res.PRs), res.Cached, now.V, readVersion)
		}
	}
}
