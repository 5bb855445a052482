package stats

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/posts"
)

// GitHub is what Read asks of GitHub: pages of pull requests, and the
// permission of a login whose reports carry gh-ocdx's marker
// (*github.Client is one).
type GitHub interface {
	ReviewedPRs(ctx context.Context, repo github.Repo, first int, after string) (github.ReviewedPage, error)
	Permission(ctx context.Context, repo github.Repo, login string) (github.Permission, error)
}

// Cache keeps what Read read of a repository, a Reviewed as JSON
// (*state.Store is one).
type Cache interface {
	ReviewedOf(host, owner, repo string) ([]byte, error)
	SetReviewed(host, owner, repo string, record []byte) error
}

// Reviewed is what stats read of a repository's pull requests: every pull
// request updated from Through to Newest, as it was when read.
type Reviewed struct {
	// V is the version of what a record keeps of a pull request
	// (readVersion): a record of another is read again from GitHub.
	V       int    `json:"v,omitempty"`
	Newest  string `json:"newest"`  // the newest updatedAt read (RFC 3339)
	Through string `json:"through"` // the oldest updatedAt read: every PR updated since is here
	// Complete says the read went to the repository's first pull request:
	// none is older than Through.
	Complete bool          `json:"complete,omitempty"`
	PRs      []ReviewedPR  `json:"prs"` // the most recently updated first
	Warnings []ReviewedMsg `json:"warnings,omitempty"`
}

// ReviewedMsg is a warning stats gave about a pull request when it read it
// (a ledger left out), said again when the record is read from here.
type ReviewedMsg struct {
	PR  int    `json:"pr"`
	Msg string `json:"msg"`
}

// ReviewedPR is one pull request as stats read it: when it last changed,
// and gh-ocdx's trusted reports on it (docs/architecture.md, Whose posts
// count). A pull request gh-ocdx did not review has no ledger.
type ReviewedPR struct {
	Number  int    `json:"number"`
	URL     string `json:"url"`
	Updated string `json:"updated"` // GitHub's updatedAt when read (RFC 3339)
	// Author is the pull request's author: their own dismissals teach
	// gh ocdx learn nothing (docs/architecture.md, Learnings).
	Author string `json:"author,omitempty"`
	// Ledger is the newest trusted ledger (posts.Trust.Ledger); nil: none.
	Ledger *posts.Ledger `json:"ledger,omitempty"`
	// Posts are the trusted reports carrying a ledger, oldest first.
	Posts []LedgerPost `json:"posts,omitempty"`
}

// LedgerPost is one trusted report's ledger header: which run and round
// posted it, when, whether its review converged, and the run's tokens so
// far per model.
type LedgerPost struct {
	Run       string              `json:"run"`
	Kind      string              `json:"kind,omitempty"`
	Round     int                 `json:"round"`
	At        string              `json:"at"` // when it was posted (RFC 3339)
	Converged bool                `json:"converged,omitempty"`
	Tokens    []posts.ModelTokens `json:"tokens,omitempty"`
}

// cached is what o.Cache keeps of o.Repo: nothing when it keeps nothing,
// or a record this version cannot read (it is read again from GitHub).
func cached(o Options) (Reviewed, error) {
	var c Reviewed
	if o.Cache == nil {
		return c, nil
	}
	raw, err := o.Cache.ReviewedOf(o.Repo.Host, o.Repo.Owner, o.Repo.Name)
	if err != nil || raw == nil {
		return c, err
	}
	if json.Unmarshal(raw, &c) != nil {
		return Reviewed{}, nil
	}
	return c, nil
}

// Options say what Read reads.
type Options struct {
	Repo   github.Repo
	GitHub GitHub
	Cache  Cache     // nil: none
	Limit  int       // the most pull requests read, the most recently updated first
	Since  time.Time // zero: any; else only those updated since
	// PageSize is the pull requests one request asks for; 0:
	// github.MaxReviewedPage.
	PageSize int
}

// Result is what Read read: the pull requests (the most recently updated
// first), what it could not take from them, and how many requests of
// pull requests it made.
type Result struct {
	PRs      []ReviewedPR
	Warnings []string
	Pages    int
	Cached   int // of PRs, those the cache gave
}

// Read reads the pull requests o names, one request per page, the most
// recently updated first: for each, gh-ocdx's trusted reports
// (docs/architecture.md, Whose posts count) and the newest ledger they
// carry. What the cache holds of the repository is asked again only for
// the pull requests updated since it was read (a PR updated has a newer
// updatedAt and comes first): the read stops at the first one not
// updated since, and the rest comes from the cache.
func Read(ctx context.Context, o Options) (Result, error) {
	size := cmp.Or(o.PageSize, github.MaxReviewedPage)
	var cache Reviewed
	if c, err := cached(o); err != nil {
		return Result{}, err
	} else if usable(c, o) {
		cache = c
	}
	newest := parseTime(cache.Newest)
	r := &reader{o: o, trusts: map[string]*posts.Trust{}, policies: map[string]*config.Policy{}}
	var res Result
	var fresh []ReviewedPR
	var warnings []ReviewedMsg
	after, complete, reachedCache, reachedSince := "", false, false, false
	// With a cache, the first page is small: usually few PRs were updated
	// since, and a page of 25 brings a few MB of reports.
	first := size
	if cache.Newest != "" {
		first = min(size, firstCachedPage)
	}
read:
	for {
		page, err := o.GitHub.ReviewedPRs(ctx, o.Repo, min(first, o.Limit-len(fresh)), after)
		first = size
		if err != nil {
			return Result{}, err
		}
		res.Pages++
		for _, n := range page.PRs {
			updated := parseTime(n.UpdatedAt)
			switch {
			case cache.Newest != "" && updated.Before(newest):
				reachedCache = true
				break read
			case !o.Since.IsZero() && updated.Before(o.Since):
				reachedSince = true
				break read
			}
			pr, ws := r.pr(ctx, n)
			fresh = append(fresh, pr)
			warnings = append(warnings, ws...)
			if len(fresh) >= o.Limit {
				break read
			}
		}
		if page.Next == "" {
			complete = true
			break
		}
		after = page.Next
	}
	keep := Reviewed{V: readVersion, PRs: fresh, Warnings: warnings, Complete: complete}
	if reachedCache {
		// The cache's pull requests not updated since, after the fresh.
		for _, pr := range cache.PRs {
			if !slices.ContainsFunc(fresh, func(f ReviewedPR) bool { return f.Number == pr.Number }) {
				keep.PRs = append(keep.PRs, pr)
				res.Cached++
			}
		}
		for _, w := range cache.Warnings {
			if !slices.ContainsFunc(fresh, func(f ReviewedPR) bool { return f.Number == w.PR }) {
				keep.Warnings = append(keep.Warnings, w)
			}
		}
		keep.Complete = cache.Complete
	}
	if len(keep.PRs) > 0 {
		keep.Newest, keep.Through = keep.PRs[0].Updated, keep.PRs[len(keep.PRs)-1].Updated
		switch {
		case reachedCache:
			keep.Through = cache.Through
		case reachedSince:
			keep.Through = o.Since.UTC().Format(time.RFC3339) // none was updated between
		}
		if o.Cache != nil {
			raw, err := json.Marshal(keep)
			if err == nil {
				err = o.Cache.SetReviewed(o.Repo.Host, o.Repo.Owner, o.Repo.Name, raw)
			}
			if err != nil {
				return Result{}, err
			}
		}
	}
	// What o asks of what is kept: since, then the limit.
	for _, pr := range keep.PRs {
		if len(res.PRs) == o.Limit || !o.Since.IsZero() && parseTime(pr.Updated).Before(o.Since) {
			break
		}
		res.PRs = append(res.PRs, pr)
	}
	for _, w := range keep.Warnings {
		if slices.ContainsFunc(res.PRs, func(p ReviewedPR) bool { return p.Number == w.PR }) {
			res.Warnings = append(res.Warnings, fmt.Sprintf("#%d: %s", w.PR, w.Msg))
		}
	}
	return res, nil
}

// firstCachedPage is the first page's size when the cache serves the
// pull requests not updated since.
const firstCachedPage = 5

// readVersion is the version of what the cache keeps of a pull request:
// 1 keeps its author, whose own dismissals gh ocdx learn ignores; 2 its
// ledger's concessions with whose reply each answered (ledger v3's
// "cto"). A cache of another version is read again.
const readVersion = 2

// usable reports whether c holds every pull request o asks for that was
// not updated since c was read: it went as far back as o goes (to the
// first pull request, to o.Since, or o.Limit of them).
func usable(c Reviewed, o Options) bool {
	switch {
	case c.Newest == "" || c.V != readVersion:
		return false
	case c.Complete, len(c.PRs) >= o.Limit:
		return true
	}
	return !o.Since.IsZero() && !parseTime(c.Through).After(o.Since)
}

// reader judges the pull requests of one read: each base branch's
// trustedLogins once, each login's permission once.
type reader struct {
	o        Options
	trusts   map[string]*posts.Trust   // by trustedLogins
	policies map[string]*config.Policy // by the .ocdx.json's text
}

// pr is what stats keeps of n: its trusted reports' ledgers, and what it
// left out of them.
func (r *reader) pr(ctx context.Context, n github.ReviewedPR) (ReviewedPR, []ReviewedMsg) {
	out := ReviewedPR{Number: n.Number, URL: n.URL, Updated: n.UpdatedAt, Author: n.Author}
	pr := n.PullRequest
	var msgs []string
	if !hasMarker(pr) {
		return out, nil // gh-ocdx never posted here: nothing to judge
	}
	t, why := r.trust(pr)
	if why != "" {
		msgs = append(msgs, why)
	}
	msgs = append(msgs, t.Judge(ctx, pr)...)
	if l, _, ws, ok := t.Ledger(ctx, pr); ok {
		out.Ledger = &l
		msgs = append(msgs, ws...)
	}
	add := func(body, by, at string) {
		if !posts.Own(pr, body, by) {
			return
		}
		l, err := posts.ParseLedger(body)
		if err != nil {
			return // no ledger, or one Ledger said it ignored
		}
		out.Posts = append(out.Posts, LedgerPost{Run: l.Run, Kind: l.Kind, Round: l.Round, At: at, Converged: l.Converged, Tokens: l.Tokens})
	}
	for _, rv := range pr.Reviews {
		add(rv.Body, rv.Writer(), rv.SubmittedAt)
	}
	for _, c := range pr.Comments {
		add(c.Body, c.Author, c.Created)
	}
	slices.SortStableFunc(out.Posts, func(a, b LedgerPost) int { return strings.Compare(a.At, b.At) })
	var ms []ReviewedMsg
	for _, m := range msgs {
		ms = append(ms, ReviewedMsg{PR: n.Number, Msg: m})
	}
	return out, ms
}

// hasMarker reports whether any report on pr carries gh-ocdx's marker.
func hasMarker(pr *github.PullRequest) bool {
	return slices.ContainsFunc(pr.Reviews, func(r github.Review) bool { return strings.Contains(r.Body, posts.Marker) }) ||
		slices.ContainsFunc(pr.Comments, func(c github.Comment) bool { return strings.Contains(c.Body, posts.Marker) })
}

// trust is the Trust of pr's base branch: its .ocdx.json's trustedLogins
// (config.FromBase), one Trust per list so that a login is asked about
// once. An unusable .ocdx.json trusts no listed login, and says so.
func (r *reader) trust(pr *github.PullRequest) (*posts.Trust, string) {
	f := pr.BasePolicy
	key := fmt.Sprintf("%t%t%t\x00%s", f.Found, f.Truncated, f.NotText, f.Text)
	p, seen := r.policies[key]
	why := ""
	if !seen {
		where := fmt.Sprintf("%s on %s at %s", config.RepoFile, pr.BaseRefName, text.ShortOID(f.Commit))
		var err error
		if p, err = config.FromBase(where, f, github.PolicyFile{}, github.PolicyFile{}); err != nil {
			p, why = nil, fmt.Sprintf("its base's %s cannot be used, so no login it lists is trusted: %s", config.RepoFile, text.FirstLine(err.Error()))
		}
		r.policies[key] = p
	}
	tk := strings.ToLower(strings.Join(p.Trusted(), ","))
	if r.trusts[tk] == nil {
		r.trusts[tk] = posts.NewTrust(r.o.GitHub, r.o.Repo, p.Trusted())
	}
	return r.trusts[tk], why
}

// parseTime reads GitHub's RFC 3339 time; the zero time when it is none.
func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}
