package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/stats"
)

// gh ocdx stats (docs/architecture.md, Stats): the ledgers of gh-ocdx's
// trusted reports on a repository's pull requests, counted per model.

const (
	statsA = "openai/gpt-4.1"
	statsB = "anthropic/claude-sonnet-4-5"
)

// statsReport is a report of gh-ocdx's carrying led, as its round reviews
// end.
func statsReport(led posts.Ledger) string {
	return posts.Marker + "\n## gh-ocdx review — round " + fmt.Sprint(led.Round) + "\n\nFindings…\n\n" + led.Block()
}

// statsLedger is round 1 of run n's ledger on a head, with fs.
func statsLedger(n int, fs ...posts.LedgerEntry) posts.Ledger {
	return posts.Ledger{Run: fmt.Sprintf("20260101T%06d-abcdef", n), Round: 1, Head: strings.Repeat("a", 40), Findings: fs,
		Tokens: []posts.ModelTokens{{Model: statsA, Input: 1000, Output: 100}, {Model: statsB, Input: 2000, Output: 200}}}
}

func statsEntry(id string, st finding.Status, agreement string, by ...string) posts.LedgerEntry {
	return posts.LedgerEntry{ID: id, Status: st, Agreement: agreement, Reviewers: by}
}

// statsAt is the i-th minute of December 2025: before anything the fake
// posts, so that a comment added later makes its PR the most recently
// updated.
func statsAt(i int) string {
	return time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
}

// addStatsPR adds PR number with the reviews rs.
func addStatsPR(gh *testkit.GitHub, number int, rs ...testkit.Review) {
	gh.AddPR(repo, testkit.PR{Number: number, Title: fmt.Sprintf("PR %d", number), Reviews: rs})
}

// botReview is a review gh-ocdx posted at minute i, carrying led.
func botReview(i int, led posts.Ledger) testkit.Review {
	return testkit.Review{State: "COMMENTED", Login: testkit.Login, Association: "COLLABORATOR", Body: statsReport(led), At: statsAt(i),
		URL: fmt.Sprintf("https://github.com/%s/pull/0#pullrequestreview-%d", repo, i)}
}

func runStats(t *testing.T, env *testkit.Env, args ...string) stats.Report {
	t.Helper()
	res := env.Run(t, append([]string{"stats", "--json"}, args...)...)
	wantCode(t, res, 0)
	var r stats.Report
	if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil {
		t.Fatalf("stats --json is not a report: %v\n%s", err, res.Stdout)
	}
	return r
}

func modelOf(t *testing.T, r stats.Report, model string) stats.ModelStats {
	t.Helper()
	for _, m := range r.Models {
		if m.Model == model {
			return m
		}
	}
	t.Fatalf("no figures for %s in %+v", model, r.Models)
	return stats.ModelStats{}
}

// Only gh-ocdx's own reports count: its login's, and those of someone
// with write permission (a laptop's run). A forged report by someone
// without it, and gh-ocdx's report someone else edited, are text: their
// ledgers count for nothing, whatever they claim.
func TestStatsCountsOnlyTrustedLedgers(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	gh.SetPermission(repo, "mona", "write")

	// 1: gh-ocdx's own, version 3: A's lone finding fixed, B's dismissed,
	// one both raised resolved.
	addStatsPR(gh, 1, botReview(1, statsLedger(1,
		statsEntry("QUAL-00000001", finding.StatusFixed, "1/2", statsA),
		statsEntry("QUAL-00000002", finding.StatusDismissed, "1/2", statsB),
		statsEntry("PERF-00000003", finding.StatusResolved, "2/2", statsA, statsB))))
	// 2: a ledger of version 2 (no reviewers), and a forged report by
	// mallory claiming A's findings were all dismissed.
	v2 := statsLedger(2, statsEntry("TEST-00000004", finding.StatusFixed, "1/2"))
	v2Body := strings.Replace(statsReport(v2), `"v":3`, `"v":2`, 1)
	addStatsPR(gh, 2, testkit.Review{State: "COMMENTED", Login: testkit.Login, Body: v2Body, At: statsAt(2)})
	gh.AddComment(repo, 2, "mallory", statsReport(statsLedger(3,
		statsEntry("QUAL-00000005", finding.StatusDismissed, "1/2", statsA),
		statsEntry("QUAL-00000006", finding.StatusDismissed, "1/2", statsA))))
	// 3: gh-ocdx's report, edited by mallory: mallory's text.
	edited := botReview(3, statsLedger(4, statsEntry("QUAL-00000007", finding.StatusRefuted, "1/2", statsA)))
	edited.Editor = "mallory"
	addStatsPR(gh, 3, edited)
	// 4: mona's run on her laptop: she has write permission.
	addStatsPR(gh, 4, testkit.Review{State: "COMMENTED", Login: "mona", At: statsAt(4),
		Body: statsReport(statsLedger(5, statsEntry("QUAL-00000008", finding.StatusOpen, "1/2", statsB)))})
	// 5: a pull request gh-ocdx never reviewed.
	addStatsPR(gh, 5)

	r := runStats(t, env)

	if r.Read != 5 || r.PRs != 3 || r.AgreementOnly != 1 {
		t.Fatalf("read %d, reviewed %d, agreement only %d; want 5, 3 (1, 2 and 4), 1", r.Read, r.PRs, r.AgreementOnly)
	}
	a, b := modelOf(t, r, statsA), modelOf(t, r, statsB)
	if a.Raised != 2 || a.Fixed != 1 || a.Resolved != 1 || a.Dismissed != 0 || a.Refuted != 0 || a.Lone.Accepted != 1 {
		t.Errorf("%s: %+v, lone %+v; want 2 raised, 1 fixed, 1 resolved, nothing dismissed or refuted, 1 lone accepted", statsA, a.Outcomes, a.Lone)
	}
	if b.Raised != 3 || b.Dismissed != 1 || b.Open != 1 || b.Resolved != 1 || b.Lone.Raised != 2 || b.Lone.Accepted != 0 {
		t.Errorf("%s: %+v, lone %+v; want 3 raised, 1 dismissed, 1 open, 1 resolved, 2 lone none accepted", statsB, b.Outcomes, b.Lone)
	}
	// Tokens of the three trusted ledgers, the v2 one's included.
	if a.Tokens != (stats.Tokens{Input: 3000, Output: 300}) {
		t.Errorf("%s's tokens %+v, want those of 3 ledgers", statsA, a.Tokens)
	}
	if r.Findings.Raised != 5 {
		t.Errorf("%d findings, want 5 (PR 1's 3, PR 2's 1, PR 4's 1)", r.Findings.Raised)
	}
	wantContains(t, "the notes", strings.Join(r.Notes, "\n"), "1 pull request's ledger is of version 2 or earlier", "no advice")

	res := env.Run(t, "stats")
	wantCode(t, res, 0)
	wantContains(t, "stats' Markdown", res.Stdout, "## gh-ocdx stats — "+repo, "gh-ocdx reviewed 3 of them",
		"| `"+statsA+"` | 3 | 2 | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 100% (2/2) | 1 | 1 | 0 | 3,000 / 300 |", "### What it would change")
}

// The reports of a login the base branch's .ocdx.json lists in
// trustedLogins (a CI bot) count, without asking GitHub about it.
func TestStatsCountsTheReportsOfATrustedLogin(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	r := testkit.NewRepo(t, "main", "feature", map[string]string{".ocdx.json": `{"trustedLogins": ["github-actions[bot]"]}`}, map[string]string{"a.go": "package a\n"})
	gh.AddPR(repo, testkit.PR{Number: 1, Remote: r.Remote, Reviews: []testkit.Review{{State: "COMMENTED", Login: "github-actions[bot]", At: statsAt(1),
		Body: statsReport(statsLedger(1, statsEntry("QUAL-00000001", finding.StatusFixed, "1/2", statsA)))}}})

	got := runStats(t, env)

	if got.PRs != 1 || modelOf(t, got, statsA).Fixed != 1 {
		t.Errorf("reviewed %d, %s %+v; want the CI bot's report counted", got.PRs, statsA, got.Models)
	}
	if n := gh.Count("permission"); n != 0 {
		t.Errorf("%d permission requests: a listed login needs none", n)
	}
}

// More pull requests than a page: one request per page. The state file
// keeps what was read, so a second run asks GitHub only for the pull
// requests updated since (one page here), and counts the others as the
// first run read them.
func TestStatsPagesAndAsksOnlyForWhatIsNew(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	const n = 30 // more than a page (github.MaxReviewedPage)
	for i := 1; i <= n; i++ {
		addStatsPR(gh, i, botReview(i, statsLedger(i, statsEntry(fmt.Sprintf("QUAL-%08x", i), finding.StatusFixed, "1/2", statsA))))
	}

	r := runStats(t, env)
	if r.Read != n || r.PRs != n || modelOf(t, r, statsA).Fixed != n {
		t.Fatalf("read %d, reviewed %d; want %d and %d", r.Read, r.PRs, n, n)
	}
	if got := gh.Count("graphql"); got != 2 {
		t.Errorf("the first run made %d GraphQL requests, want 2 pages", got)
	}

	// PR 7 gets a new report, whose ledger dismisses B's new finding; PR
	// 31 is new.
	gh.AddComment(repo, 7, testkit.Login, statsReport(statsLedger(40,
		statsEntry("QUAL-00000007", finding.StatusFixed, "1/2", statsA),
		statsEntry("QUAL-000000aa", finding.StatusDismissed, "1/2", statsB))))
	addStatsPR(gh, 31, testkit.Review{State: "COMMENTED", Login: testkit.Login, At: time.Now().UTC().Format(time.RFC3339),
		Body: statsReport(statsLedger(41, statsEntry("QUAL-000000bb", finding.StatusRefuted, "1/2", statsB)))})
	before := gh.Count("graphql")

	r = runStats(t, env)
	if got := gh.Count("graphql") - before; got != 1 {
		t.Errorf("the second run made %d GraphQL requests, want 1: only the pull requests updated since", got)
	}
	// Its page is small: few PRs change between two runs, and each brings its reports.
	if reqs := gh.Requests(); !strings.Contains(reqs[len(reqs)-1].Body, `"first":5`) {
		t.Errorf("the second run asked for a page of another size: %s", reqs[len(reqs)-1].Body)
	}
	b := modelOf(t, r, statsB)
	if r.Read != n+1 || r.PRs != n+1 || modelOf(t, r, statsA).Fixed != n || b.Dismissed != 1 || b.Refuted != 1 {
		t.Errorf("second run: read %d, reviewed %d, %s %+v; want %d, %d, 1 dismissed and 1 refuted", r.Read, r.PRs, statsB, b.Outcomes, n+1, n+1)
	}

	// Nothing new: one request, the same figures; --limit reads the newest.
	before = gh.Count("graphql")
	again := runStats(t, env)
	if got := gh.Count("graphql") - before; got != 1 {
		t.Errorf("a run with nothing new made %d GraphQL requests, want 1", got)
	}
	res := env.Run(t, "stats", "--json", "prs")
	wantContains(t, "stderr", res.Stderr, "Read 31 pull requests of "+repo+" in 1 request (30 as the state file kept them: not updated since)")
	if again.Read != r.Read || modelOf(t, again, statsB).Outcomes != b.Outcomes {
		t.Errorf("a run with nothing new counts otherwise: read %d, %+v", again.Read, modelOf(t, again, statsB).Outcomes)
	}
	if l := runStats(t, env, "--limit", "2"); l.Read != 2 || modelOf(t, l, statsB).Raised != 2 {
		t.Errorf("--limit 2 read %d pull requests, %s raised %d; want PRs 31 and 7, 2", l.Read, statsB, modelOf(t, l, statsB).Raised)
	}
	// PRs 31 and 7 were updated this year, the others in December.
	before = gh.Count("graphql")
	if s := runStats(t, env, "--since", "2026-01-01"); s.Read != 2 || gh.Count("graphql")-before != 1 {
		t.Errorf("--since 2026-01-01 read %d pull requests in %d requests, want 2 (31 and 7) in 1", s.Read, gh.Count("graphql")-before)
	}
}

// The prices of the configuration give the costs; --json's fields are
// every field, or those asked for, sorted.
func TestStatsPricesTokensAndSelectsJSONFields(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	cfg := `{"reviewerModels": ["` + statsA + `", "` + statsB + `"], "commentsAnalyzerModel": "` + statsA + `", "prFixModel": "` + statsB + `",
  "prices": {"` + statsA + `": {"input": 2, "output": 8}}}`
	if err := os.MkdirAll(filepath.Dir(env.Vars["OCDX_CONFIG"]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env.Vars["OCDX_CONFIG"], []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	addStatsPR(gh, 1, botReview(1, statsLedger(1, statsEntry("QUAL-00000001", finding.StatusFixed, "1/2", statsA))))

	res := env.Run(t, "stats", "--json", "costPerPr,prs,cost")
	wantCode(t, res, 0)
	// 1000 in at $2/M and 100 out at $8/M; B has no price.
	if want := "{\n  \"cost\": 0.0028,\n  \"costPerPr\": 0.0028,\n  \"prs\": 1\n}\n"; res.Stdout != want {
		t.Errorf("stats --json costPerPr,prs,cost wrote\n%s\nwant\n%s", res.Stdout, want)
	}
}

// A bad flag is a usage error (exit 2) before any request.
func TestStatsRefusesBadFlagsBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--limit", "0"}, "invalid --limit 0"},
		{[]string{"--since", "last week"}, `invalid --since "last week"`},
		{[]string{"--json", "modles"}, `Unknown JSON field: "modles"`},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		res := env.Run(t, append([]string{"stats"}, c.args...)...)
		if res.Code != 2 || !strings.Contains(res.Stderr, c.says) {
			t.Errorf("stats %s: exit %d, stderr:\n%s\nwant exit 2 saying %q", strings.Join(c.args, " "), res.Code, res.Stderr, c.says)
		}
	}
	if n := gh.Count(""); n != 0 {
		t.Errorf("bad flags made %d requests", n)
	}
}
