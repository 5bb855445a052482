package e2e

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// ghesToken is a GitHub token in no secret pattern's shape: only the
// knowledge that gh-ocdx holds it can hide it.
const ghesToken = "qzvmxkwplrtybnhgfdsaqzvmxkwplrtybnhgfdsa"

// hostsToken is another login's token in gh's hosts.yml.
const hostsToken = "plmoknijbuhvygctfxrdzeswaqplmoknijbuhvyg"

// TestPRCannotEchoCredentials: a PR whose title, body and diff hold the
// exact GH_ENTERPRISE_TOKEN and OPENAI_API_KEY values and a token of gh's
// hosts.yml, and a reviewer that
// quotes them in a finding: neither value reaches any model request nor
// any posted comment or review.
func TestPRCannotEchoCredentials(t *testing.T) {
	t.Parallel()
	leak := "deploy with " + ghesToken + " and " + openAIKey + " or " + hostsToken
	lf := newLoop(t, func(pr *testkit.PR) {
		pr.Title = "Deploy " + ghesToken
		pr.Body = leak
		pr.Diff += "diff --git a/deploy.txt b/deploy.txt\nnew file mode 100644\n--- /dev/null\n+++ b/deploy.txt\n@@ -0,0 +1,3 @@\n" +
			"+ghe " + ghesToken + "\n+oai " + openAIKey + "\n"
	})
	lf.gh.Token = ghesToken
	lf.env.Set("GH_ENTERPRISE_TOKEN", ghesToken)
	lf.env.Set("OPENAI_API_KEY", openAIKey)
	testkit.WriteFiles(t, lf.env.Vars["GH_CONFIG_DIR"], map[string]string{"hosts.yml": "github.com:\n    users:\n        mona:\n            oauth_token: " + hostsToken +
		"\n    git_protocol: https\n    oauth_token: \"" + hostsToken + "\"\n    user: mona\n"})
	quoted := modelFinding{Priority: "P3", Category: "security", File: "deploy.txt", Line: line(1), Title: "Credentials in the PR",
		Description: "The PR says: " + leak}
	for range 3 {
		lf.findingRound(quoted)
	}

	res := lf.run("--yes")

	if res.Code != 0 && res.Code != 3 {
		wantCode(t, res, 3)
	}
	if len(lf.bodies()) == 0 {
		t.Fatalf("nothing was posted: the check below would prove nothing\n%s", res.Stderr)
	}
	for _, m := range []string{"rev-a", "rev-b", "analyzer"} {
		reqs := lf.fm.Requests(m)
		if len(reqs) == 0 {
			t.Fatalf("%s got no request: the check below would prove nothing", m)
		}
		for i, r := range reqs {
			for _, s := range []string{ghesToken, openAIKey, hostsToken} {
				if strings.Contains(string(r.Body), s) {
					t.Errorf("%s request %d holds the credential %q", m, i, s)
				}
			}
		}
	}
	if !strings.Contains(string(lf.fm.Requests("rev-a")[0].Body), "[SECRET:credential]") {
		t.Errorf("the reviewer was not told a credential was hidden:\n%s", lf.fm.Requests("rev-a")[0].Body)
	}
	posted := strings.Join(lf.bodies(), "\n")
	for _, r := range lf.gh.Reviews(repo, loopPR) {
		posted += r.Body
	}
	for _, s := range []string{ghesToken, openAIKey, hostsToken} {
		if strings.Contains(posted, s) {
			t.Errorf("a posted comment holds the credential %q:\n%s", s, posted)
		}
	}
}

// TestAddedTokenNeverConverges: a PR adds a hard-coded GitHub token and
// every reviewer approves. The reviewers see the line's shape with the value
// hidden, the report lists gh-ocdx's own P0 SEC finding at the added line,
// the fix is asked for it once, and the loop ends without converging.
func TestAddedTokenNeverConverges(t *testing.T) {
	t.Parallel()
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	lf := newLoop(t, func(pr *testkit.PR) {
		pr.Diff += "diff --git a/config.go b/config.go\nnew file mode 100644\n--- /dev/null\n+++ b/config.go\n@@ -0,0 +1,3 @@\n" +
			"+package cache\n+\n+var token = \"" + token + "\"\n"
	})
	for range 3 {
		lf.approveRound()
	}
	sec := modelFinding{Category: "security", File: "config.go", Line: line(3), Title: "Hard-coded github-token added"}.id()

	res := lf.run("--yes")

	wantCode(t, res, 3)
	first := lf.bodies()[0]
	wantContains(t, "the first review report", first, sec, "P0", "needs_major_work", "fixing 1 finding ("+sec+" P0)")
	wantContains(t, "the outcome", res.Stdout+res.Stderr, sec)
	for i, r := range lf.fm.Requests("rev-a") {
		if strings.Contains(string(r.Body), token) {
			t.Errorf("reviewer request %d holds the token", i)
		}
		if i == 0 && !strings.Contains(string(r.Body), `+var token = \"[SECRET:github-token]\"`) {
			t.Errorf("the reviewer did not see the line with its value hidden:\n%s", r.Body)
		}
	}
}
