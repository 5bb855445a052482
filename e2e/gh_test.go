package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// TestInstallThroughGH does what the README says: from a directory named
// gh-ocdx holding the build, `gh extension install .` (installBuilt, once
// per test process), then `gh ocdx`.
func TestInstallThroughGH(t *testing.T) {
	t.Parallel()
	ghBin, err := exec.LookPath("gh")
	if err != nil {
		t.Fatal("gh is not on PATH: install the Debian package gh (.ci/run does)")
	}
	gh, env, _ := prFixture(t, map[string]string{"auth.go": "package auth // changed\n"})

	installBuilt(t, env) // gh extension install . in .../gh-ocdx, the build output
	help := env.RunWith(t, nil, ghBin, "ocdx", "--help")
	if help.Code != 0 || !strings.Contains(help.Stdout, "review-pr") {
		t.Fatalf("gh ocdx --help exited %d:\n%s%s", help.Code, help.Stdout, help.Stderr)
	}
	res := env.RunWith(t, nil, ghBin, "ocdx", "review-pr", "24", "--context-only")
	if res.Code != 0 || !strings.Contains(res.Stdout, "**Title:** Fix login redirect") {
		t.Fatalf("gh ocdx review-pr exited %d:\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if gh.Count("graphql") != 1 {
		t.Errorf("want one GraphQL query through gh, got %d", gh.Count("graphql"))
	}
	if usage := env.RunWith(t, nil, ghBin, "ocdx", "review-pr", "x"); usage.Code != 2 {
		t.Errorf("gh must pass the exit code through: got %d, want 2", usage.Code)
	}
}
