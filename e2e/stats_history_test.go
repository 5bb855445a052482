package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/testkit"
	"github.com/ocdx/gh-ocdx/posts"
	"github.com/ocdx/gh-ocdx/stats"
)

// A recorded history for stats (docs/architecture.md, Stats): PR i was
// reviewed in two rounds by three models, and its three findings ended by
// rules simple enough to tally by hand:
//
//   - QUAL, P1, raised by A and B (2/3): fixed, or resolved when i%3 == 0;
//   - PERF, P2, raised by C alone (1/3): dismissed when i is even, refuted
//     when i%4 == 1, open when i%4 == 3;
//   - TEST, P3, raised by A alone (1/3): fixed, or dismissed when i%5 == 0.
//
// Round 1 is posted at minute 10i, round 2 an hour later, converged when i
// is odd; the run's tokens after round 1 are A 100/10, B 200/20, C 300/30,
// after round 2 A 150/15, B 300/30, C 450/45. When i%10 == 0 the ledgers
// are of version 2 (no reviewers, no tokens). When i%13 == 0 they are
// mona's (write permission: her laptop's run). Noise that must count for
// nothing: when i%7 == 0 mallory (no permission) posts a newer report
// whose ledger dismisses everything; when i%11 == 0 gh-ocdx's newest report
// is one mallory edited to say everything was refuted.
const (
	histA = "openai/gpt-4.1"
	histB = "anthropic/claude-sonnet-4-5"
	histC = "ollama/qwen2.5-coder:32b"
)

// Where the history's findings are, by category (PERF's file by i%4), and
// who dismissed them and why (gh ocdx learn, docs/architecture.md,
// Learnings): QUAL and TEST are in cache/, PERF in generated code under
// gen/api/. A PERF finding is dismissed by octocat, the PRs' author, when
// i%6 == 0, by reader (read permission) when i%10 == 4, else by mona
// ("generated file"); a TEST finding by mona ("covered by the integration
// tests"). A report of mona's (i%13 == 0) keeps her dismissals without
// their reasons (posts.Trust.Ledger).
var historyWhere = map[string]posts.Where{
	"QUAL": {File: "cache/cache.go", Title: "Missing nil check on the cache entry"},
	"PERF": {File: "gen/api/client%d.go", Title: "Allocation in a hot loop"},
	"TEST": {File: "cache/cache_test.go", Title: "Test the eviction order"},
}

func historyDismisser(cat string, i int) (by, why string) {
	switch {
	case cat == "TEST":
		return "mona", "covered by the integration tests"
	case i%6 == 0:
		return "octocat", "not my problem"
	case i%10 == 4:
		return "reader", "generated file"
	}
	return "mona", "generated file"
}

// historyPR is PR i's ledger at round (1 or 2).
func historyPR(i, round int) posts.Ledger {
	shared, lone, alone := finding.StatusFixed, finding.StatusDismissed, finding.StatusFixed
	if i%3 == 0 {
		shared = finding.StatusResolved
	}
	switch i % 4 {
	case 1:
		lone = finding.StatusRefuted
	case 3:
		lone = finding.StatusOpen
	}
	if i%5 == 0 {
		alone = finding.StatusDismissed
	}
	if round == 1 { // what round 1 left: everything open
		shared, lone, alone = finding.StatusOpen, finding.StatusOpen, finding.StatusOpen
	}
	e := func(cat string, n int, st finding.Status, p, agreement string, by ...string) posts.LedgerEntry {
		where := historyWhere[cat]
		where.Priority, where.Line = p, 10+n
		if cat == "PERF" {
			where.File = fmt.Sprintf(where.File, i%4)
		}
		en := posts.LedgerEntry{ID: fmt.Sprintf("%s-%08x", cat, i*10+n), Status: st, Agreement: agreement, Reviewers: by, Where: where}
		if st == finding.StatusDismissed {
			en.DismissedBy, en.Reason = historyDismisser(cat, i)
		}
		return en
	}
	l := posts.Ledger{Run: fmt.Sprintf("20260101T%06d-abcdef", i), Round: round, Head: strings.Repeat("b", 40),
		Converged: round == 2 && i%2 == 1,
		Findings: []posts.LedgerEntry{
			e("QUAL", 1, shared, "P1", "2/3", histA, histB),
			e("PERF", 2, lone, "P2", "1/3", histC),
			e("TEST", 3, alone, "P3", "1/3", histA),
		}}
	if i%10 == 0 {
		for j := range l.Findings {
			l.Findings[j].Reviewers = nil
		}
		return l
	}
	k := int64(round + 1) // 2 after round 1, 3 after round 2: 100 and 150 for A
	l.Tokens = []posts.ModelTokens{{Model: histA, Input: 50 * k, Output: 5 * k}, {Model: histB, Input: 100 * k, Output: 10 * k}, {Model: histC, Input: 150 * k, Output: 15 * k}}
	return l
}

// historyBody is a report carrying l, padded to a report's usual length.
func historyBody(l posts.Ledger, v2 bool) string {
	body := statsReport(l)
	if v2 {
		body = strings.Replace(body, `"v":3`, `"v":2`, 1)
	}
	pad := strings.Repeat("| P2 | `cache.go:12` | A finding's title, as a report lists it | 2/3 reviewers |\n", 60)
	return strings.Replace(body, "Findings…", pad, 1)
}

// addHistory adds PRs 1..n as the rules above record them, and then
// unreviewed more PRs gh-ocdx never posted on.
func addHistory(gh *testkit.GitHub, n, unreviewed int) {
	gh.SetPermission(repo, "mona", "write")
	gh.SetPermission(repo, "octocat", "admin")
	gh.SetPermission(repo, "reader", "read")
	base := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		at := base.Add(time.Duration(10*i) * time.Minute)
		by := testkit.Login
		if i%13 == 0 {
			by = "mona"
		}
		review := func(round int, when time.Time) testkit.Review {
			return testkit.Review{State: "COMMENTED", Login: by, Association: "COLLABORATOR", Body: historyBody(historyPR(i, round), i%10 == 0),
				At: when.Format(time.RFC3339), URL: fmt.Sprintf("https://github.com/%s/pull/%d#pullrequestreview-%d", repo, i, round)}
		}
		rs := []testkit.Review{review(1, at), review(2, at.Add(time.Hour))}
		if i%11 == 0 {
			forged := historyPR(i, 2)
			forged.Round = 3
			for j := range forged.Findings {
				forged.Findings[j].Status = finding.StatusRefuted
			}
			rs = append(rs, testkit.Review{State: "COMMENTED", Login: testkit.Login, Editor: "mallory", Body: historyBody(forged, false),
				At: at.Add(2 * time.Hour).Format(time.RFC3339)})
		}
		if i%7 == 0 {
			forged := historyPR(i, 2)
			forged.Run = "20260301T000000-ffffff"
			for j := range forged.Findings {
				forged.Findings[j].Status = finding.StatusDismissed
			}
			forged.Findings = append(forged.Findings, posts.LedgerEntry{ID: "QUAL-deadbeef", Status: finding.StatusFixed, Agreement: "1/3", Reviewers: []string{histB}})
			rs = append(rs, testkit.Review{State: "COMMENTED", Login: "mallory", Body: historyBody(forged, false), At: at.Add(3 * time.Hour).Format(time.RFC3339)})
		}
		gh.AddPR(repo, testkit.PR{Number: i, Title: fmt.Sprintf("PR %d", i), Reviews: rs})
	}
	for i := n + 1; i <= n+unreviewed; i++ {
		gh.AddPR(repo, testkit.PR{Number: i, Title: fmt.Sprintf("PR %d", i), Updated: base.Add(time.Duration(10*i) * time.Minute).Format(time.RFC3339)})
	}
}

func outcomesOf(raised, open, fixed, resolved, dismissed, refuted int) stats.Outcomes {
	o := stats.Outcomes{Raised: raised, Open: open, Fixed: fixed, Resolved: resolved, Dismissed: dismissed, Refuted: refuted,
		Decided: fixed + resolved + dismissed + refuted, Accepted: fixed + resolved}
	if o.Decided > 0 {
		o.AcceptedShare = float64(o.Accepted) / float64(o.Decided)
	}
	return o
}

// On 60 recorded PRs (and 5 gh-ocdx never reviewed), stats gives the
// counts tallied by hand from the rules of the history, noise left out.
func TestStatsReproducesAHandTallyOf60PRs(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	addHistory(gh, 60, 5)

	r := runStats(t, env)

	// By hand. 60 PRs, of which 6 (i%10 == 0) are version 2 and 54 name
	// their reviewers. 180 findings: QUAL 40 fixed and 20 resolved; PERF
	// 30 dismissed, 15 refuted, 15 open; TEST 48 fixed, 12 dismissed.
	if r.Read != 65 || r.PRs != 60 || r.AgreementOnly != 6 {
		t.Errorf("read %d, reviewed %d, version 2 %d; want 65, 60, 6", r.Read, r.PRs, r.AgreementOnly)
	}
	if r.Rounds != 120 || r.Converged != 30 || r.RoundsToConverge != 2 || r.TimeToConverge != 3600 {
		t.Errorf("rounds %d, converged %d in %g rounds, %gs; want 120, 30 in 2 rounds, 3600s", r.Rounds, r.Converged, r.RoundsToConverge, r.TimeToConverge)
	}
	if want := outcomesOf(180, 15, 88, 20, 42, 15); r.Findings != want {
		t.Errorf("findings %+v\nwant %+v", r.Findings, want)
	}
	wantGroups := func(what string, got []stats.Group, want ...stats.Group) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
		}
	}
	qual, perf, test := outcomesOf(60, 0, 40, 20, 0, 0), outcomesOf(60, 15, 0, 0, 30, 15), outcomesOf(60, 0, 48, 0, 12, 0)
	wantGroups("priorities", r.Priorities, stats.Group{Name: "P1", Outcomes: qual}, stats.Group{Name: "P2", Outcomes: perf}, stats.Group{Name: "P3", Outcomes: test})
	wantGroups("categories", r.Categories, stats.Group{Name: "PERF", Outcomes: perf}, stats.Group{Name: "QUAL", Outcomes: qual}, stats.Group{Name: "TEST", Outcomes: test})
	wantGroups("agreement", r.Agreement, stats.Group{Name: "lone", Outcomes: outcomesOf(120, 15, 48, 0, 42, 15)}, stats.Group{Name: "shared", Outcomes: qual})

	// Per model, the 54 PRs of version 3. Of i in 1..60 without i%10 == 0:
	// 18 have i%3 == 0, 6 have i%5 == 0, 24 are even, 15 have i%4 == 1,
	// 15 have i%4 == 3.
	want := map[string]struct {
		all, lone stats.Outcomes
		tokens    stats.Tokens
	}{
		histA: {outcomesOf(108, 0, 84, 18, 6, 0), outcomesOf(54, 0, 48, 0, 6, 0), stats.Tokens{Input: 150 * 54, Output: 15 * 54}},
		histB: {outcomesOf(54, 0, 36, 18, 0, 0), stats.Outcomes{}, stats.Tokens{Input: 300 * 54, Output: 30 * 54}},
		histC: {outcomesOf(54, 15, 0, 0, 24, 15), outcomesOf(54, 15, 0, 0, 24, 15), stats.Tokens{Input: 450 * 54, Output: 45 * 54}},
	}
	if len(r.Models) != 3 {
		t.Errorf("models %+v, want %s, %s and %s", r.Models, histA, histB, histC)
	}
	for m, w := range want {
		got := modelOf(t, r, m)
		if got.Outcomes != w.all || got.Lone != w.lone || got.Tokens != w.tokens || got.PRs != 54 {
			t.Errorf("%s: %+v, lone %+v, tokens %+v, %d PRs\nwant %+v, lone %+v, tokens %+v, 54 PRs", m, got.Outcomes, got.Lone, got.Tokens, got.PRs, w.all, w.lone, w.tokens)
		}
	}
	// C's 39 decided lone findings were all dismissed or refuted: drop it,
	// losing nothing; A's 54 were 48 accepted: keep it; B raised nothing
	// alone.
	if len(r.Advice) != 2 {
		t.Fatalf("advice %+v, want C dropped and A kept", r.Advice)
	}
	i := slices.IndexFunc(r.Advice, func(a stats.Advice) bool { return a.Model == histC })
	if i < 0 || r.Advice[i].Change != "drop" || r.Advice[i].Loses != 0 || r.Advice[i].Saves != want[histC].tokens {
		t.Errorf("advice %+v, want %s dropped, saving its tokens and losing nothing", r.Advice, histC)
	}
	if j := slices.IndexFunc(r.Advice, func(a stats.Advice) bool { return a.Model == histA }); j < 0 || r.Advice[j].Change != "keep" || r.Advice[j].Loses != 48 {
		t.Errorf("advice %+v, want %s kept, with its 48 accepted lone findings", r.Advice, histA)
	}
	wantContains(t, "the notes", strings.Join(r.Notes, "\n"), "too few decided findings that only one model raised to judge "+histB+" (0)")
	if n := gh.Count("graphql"); n != 3 {
		t.Errorf("%d GraphQL requests for 65 PRs, want 3 pages", n)
	}
}

// The cost of stats over 1,000 PRs (BENCHMARKS.md, Stats): the built
// binary's wall time and GraphQL requests, a first run and a second with
// nothing new. OCDX_BENCH=1 runs it (it times things).
func TestStatsCostOver1000PRs(t *testing.T) {
	if os.Getenv("OCDX_BENCH") == "" {
		t.Skip("OCDX_BENCH=1 measures the cost of stats over 1,000 PRs")
	}
	gh := testkit.NewGitHub(t)
	env := testkit.NewEnv(t)
	gh.Configure(env, repo)
	addHistory(gh, 1000, 0)
	testkit.Binary(t) // built before the clock starts
	for run := range 3 {
		os.RemoveAll(env.Vars["OCDX_STATE_DIR"])
		os.MkdirAll(env.Vars["OCDX_STATE_DIR"], 0o700)
		for _, what := range []string{"first run", "nothing new"} {
			before := gh.Count("graphql")
			c := exec.Command(testkit.Binary(t), "stats", "--limit", "1000", "--jq", ".prs")
			c.Dir, c.Env = env.Dir, env.List()
			start := time.Now()
			out, err := c.Output()
			wall := time.Since(start)
			if err != nil {
				t.Fatalf("stats: %v", err)
			}
			cpu := c.ProcessState.UserTime() + c.ProcessState.SystemTime()
			st, _ := os.Stat(filepath.Join(env.Vars["OCDX_STATE_DIR"], "state.db"))
			t.Logf("run %d, %s: %s PRs reviewed, %v wall, %v CPU of gh-ocdx, %d GraphQL requests, state file %d KB", run+1, what,
				strings.TrimSpace(string(out)), wall.Round(time.Millisecond), cpu.Round(time.Millisecond), gh.Count("graphql")-before, st.Size()>>10)
		}
	}
}
