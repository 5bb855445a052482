package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIdentity is who the tests' commits are by: a machine without a git
// identity of its own (a fresh CI runner) runs them as well. Git's
// housekeeping after a commit or a push (gc and maintenance, run --auto)
// is off: it was a fifth of the git processes the tests start, on
// repositories that live a second.
var gitIdentity = []string{"GIT_AUTHOR_NAME=ocdx test", "GIT_AUTHOR_EMAIL=test@example.com",
	"GIT_COMMITTER_NAME=ocdx test", "GIT_COMMITTER_EMAIL=test@example.com",
	"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0",
	"GIT_CONFIG_KEY_1=maintenance.auto", "GIT_CONFIG_VALUE_1=false"}

// GitQuiet are gitIdentity's settings that turn git's housekeeping off,
// for a test process that sets its own identity.
var GitQuiet = gitIdentity[4:]

// UseGitIdentity gives the test process gitIdentity, for the packages whose
// tests have gh-ocdx's own git commands commit (call it from TestMain).
func UseGitIdentity() {
	for _, kv := range gitIdentity {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
}

// Git runs git in dir and returns its trimmed output; a failure fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1"), gitIdentity...)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Repo is a bare remote standing in for the GitHub repository, with a clone
// checked out on the PR branch.
type Repo struct {
	Remote string // bare repository (the push target)
	Clone  string // work tree on the head branch
	Base   string // base branch name
	Head   string // head branch name
}

// NewRepo creates a bare remote whose base branch holds baseFiles and whose
// head branch adds headFiles on top in one commit, and a clone on the head
// branch with "origin" pointing at the remote.
func NewRepo(t testing.TB, base, head string, baseFiles, headFiles map[string]string) *Repo {
	t.Helper()
	root := t.TempDir()
	r := &Repo{Remote: filepath.Join(root, "remote.git"), Clone: filepath.Join(root, "work"), Base: base, Head: head}
	Git(t, root, "init", "--quiet", "--bare", "--initial-branch="+base, r.Remote)
	// A push runs the remote's gc in a clean environment, which GitQuiet
	// does not reach: the remote is told itself.
	Git(t, r.Remote, "config", "receive.autogc", "false")
	Git(t, root, "init", "--quiet", "--initial-branch="+base, r.Clone)
	Git(t, r.Clone, "remote", "add", "origin", r.Remote)
	WriteFiles(t, r.Clone, baseFiles)
	Git(t, r.Clone, "add", "-A")
	Git(t, r.Clone, "commit", "--quiet", "--allow-empty", "-m", "base")
	Git(t, r.Clone, "push", "--quiet", "origin", base)
	Git(t, r.Clone, "checkout", "--quiet", "-b", head)
	WriteFiles(t, r.Clone, headFiles)
	Git(t, r.Clone, "add", "-A")
	Git(t, r.Clone, "commit", "--quiet", "--allow-empty", "-m", "change")
	Git(t, r.Clone, "push", "--quiet", "--set-upstream", "origin", head)
	return r
}

// Diff is the unified diff of the head branch against the base, as GitHub
// shows it for the PR.
func (r *Repo) Diff(t testing.TB) string {
	t.Helper()
	return Git(t, r.Clone, "diff", r.Base+"..."+r.Head) + "\n"
}

// MoveBase adds a commit to the base branch on the remote that the clone
// does not fetch: the clone no longer holds the PR's base, so gh-ocdx
// reads the PR's diff from the fake GitHub, as it does for a clone that
// has not fetched (the diff is unchanged: the commit changes nothing).
func (r *Repo) MoveBase(t testing.TB) {
	t.Helper()
	tree := Git(t, r.Remote, "rev-parse", "refs/heads/"+r.Base+"^{tree}")
	c := Git(t, r.Remote, "commit-tree", tree, "-p", "refs/heads/"+r.Base, "-m", "the base moves on")
	Git(t, r.Remote, "update-ref", "refs/heads/"+r.Base, c)
}

// RemoteOID is the commit a branch points to on the remote.
func (r *Repo) RemoteOID(t testing.TB, branch string) string {
	t.Helper()
	return Git(t, r.Remote, "rev-parse", "refs/heads/"+branch)
}

// WriteFiles writes files (path → content) under dir.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
