package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// readmeBlock returns the lines of the first fenced block of lang under the
// heading, read from the README so the test follows what a newcomer reads.
func readmeBlock(t *testing.T, heading, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q", heading)
	}
	_, after, ok = strings.Cut(after, "```"+lang+"\n")
	if !ok {
		t.Fatalf("README.md has no ```%s block under %q", lang, heading)
	}
	block, _, _ := strings.Cut(after, "```")
	return strings.Split(strings.TrimRight(block, "\n"), "\n")
}

// TestReadmeQuickStart types the README's Quick start, line by line, into
// the test world: gh itself runs the extension, against the TLS fake GitHub
// and the fake model server. A line the test does not know fails it, so the
// README cannot gain a step nobody has run.
func TestReadmeQuickStart(t *testing.T) {
	t.Parallel()
	ghBin, err := exec.LookPath("gh")
	if err != nil {
		t.Fatal("gh is not on PATH: install the Debian package gh (.ci/run does)")
	}
	gh, env, r := prFixture(t, map[string]string{"auth.go": "package auth\n\nfunc Redirect() string { return \"/home\" }\n"})
	fm := testkit.NewFakeModel(t)
	// config init must write where the README says, under HOME/XDG, not
	// where the test harness points OCDX_CONFIG.
	env.Set("OCDX_CONFIG", "")
	written := filepath.Join(env.Vars["XDG_CONFIG_HOME"], "gh-ocdx", "config.json")

	for _, line := range readmeBlock(t, "## Quick start", "sh") {
		cmdText, comment, _ := strings.Cut(line, " #")
		cmdText = strings.TrimSpace(cmdText)
		switch {
		case cmdText == "gh auth login":
			// The README offers GH_TOKEN instead; prFixture gave the token
			// as GH_ENTERPRISE_TOKEN, gh's variable for a GH_HOST that is
			// not github.com.
			if !strings.Contains(comment, "GH_TOKEN") {
				t.Fatalf("the README no longer offers GH_TOKEN for %q", line)
			}
			if env.Vars["GH_ENTERPRISE_TOKEN"] == "" {
				t.Fatal("no token given to gh")
			}
		case cmdText == "gh extension install ocdx/gh-ocdx":
			// The freshly built binary, in a directory named gh-ocdx,
			// which gh installs once per test process.
			installBuilt(t, env)
			env.Dir = r.Clone
		case cmdText == "gh ocdx config init":
			res := env.RunWith(t, nil, ghBin, "ocdx", "config", "init")
			if res.Code != 0 {
				t.Fatalf("%s exited %d:\n%s%s", cmdText, res.Code, res.Stdout, res.Stderr)
			}
			if _, err := os.Stat(written); err != nil || !strings.Contains(comment, "~/.config/gh-ocdx/config.json") {
				t.Fatalf("the README says config init writes ~/.config/gh-ocdx/config.json; %s: %v", written, err)
			}
		case strings.HasPrefix(cmdText, "export "):
			// Each key the line names is the fake's, with its base URL.
			fake := map[string]bool{}
			for _, kv := range fm.Env() {
				k, _, _ := strings.Cut(kv, "=")
				fake[k] = true
			}
			for _, f := range strings.Fields(strings.TrimPrefix(cmdText, "export ")) {
				k, _, _ := strings.Cut(f, "=")
				if !fake[k] {
					t.Fatalf("the README exports %s, which the fake model server does not give", k)
				}
			}
			fm.Configure(env)
		case cmdText == "gh ocdx review-pr 24":
			// The written config names real models; the fake answers the
			// one review-pr uses, by that name. The test edits nothing.
			var cfg struct {
				ReviewPrModel string `json:"reviewPrModel"`
			}
			b, err := os.ReadFile(written)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &cfg); err != nil || !strings.Contains(cfg.ReviewPrModel, "/") {
				t.Fatalf("config init wrote no reviewPrModel (%v):\n%s", err, b)
			}
			scriptReview(fm, strings.SplitN(cfg.ReviewPrModel, "/", 2)[1], "COMMENT", reviewBody)

			term := env.StartProgramTerminal(t, ghBin, "ocdx", "review-pr", "24")
			term.Expect("Context request")
			term.Send(testkit.Enter) // fetch it
			term.Expect("Post this review?")
			term.Send(testkit.Enter)
			if code := term.Wait(); code != 0 {
				t.Fatalf("exit %d:\n%s", code, term.Screen())
			}
			if got := gh.Reviews(repo, 24); len(got) != 1 || !strings.Contains(got[0].Body, "**Verdict:** changes needed.") {
				t.Fatalf("want the model's review posted on PR #24, got %+v", got)
			}
		default:
			t.Fatalf("the README's Quick start has a line this test does not run: %q", line)
		}
	}
	if len(gh.Reviews(repo, 24)) != 1 {
		t.Fatal("the Quick start no longer ends with a review posted")
	}
}
