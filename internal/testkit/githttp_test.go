package testkit

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// git reaches a repository of the fake over HTTPS only with its token, as
// a workflow's checkout sends it, and then clones and pushes to the bare
// remote of the repository's PRs.
func TestFakeGitHubServesGitOnlyWithTheToken(t *testing.T) {
	r := NewRepo(t, "main", "feature", map[string]string{"a.txt": "a\n"}, map[string]string{"b.txt": "b\n"})
	g := NewGitHub(t)
	g.AddPR("octo/widgets", PR{Number: 1, HeadRef: r.Head, BaseRef: r.Base, Remote: r.Remote, Diff: r.Diff(t)})
	url := "https://" + g.Host() + "/octo/widgets.git"
	git := func(dir string, args ...string) (string, error) {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(c.Environ(), "GIT_SSL_CAINFO="+g.CertFile, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1")
		out, err := c.CombinedOutput()
		return string(out), err
	}
	dir := t.TempDir()

	if out, err := git(dir, "clone", "--quiet", url, "anonymous"); err == nil {
		t.Fatalf("a clone without the token succeeded: %s", out)
	}
	header := "http.extraheader=AUTHORIZATION: token " + g.Token
	if out, err := git(dir, "-c", header, "clone", "--quiet", "--branch", r.Head, url, "clone"); err != nil {
		t.Fatalf("clone with the token: %v\n%s", err, out)
	}
	clone := filepath.Join(dir, "clone")
	Git(t, clone, "commit", "--quiet", "--allow-empty", "-m", "pushed over HTTPS")
	if out, err := git(clone, "-c", header, "push", "--quiet", "origin", r.Head); err != nil {
		t.Fatalf("push with the token: %v\n%s", err, out)
	}
	if got, want := r.RemoteOID(t, r.Head), Git(t, clone, "rev-parse", "HEAD"); got != want {
		t.Errorf("the remote's %s is %s, want the pushed %s", r.Head, got, want)
	}
}
