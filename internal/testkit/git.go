package testkit

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// gitIdentity is who the tests' commits are by: a machine without a git
// identity of its own (a fresh CI runner) runs them as well. Git's
// housekeeping after a commit or a push (gc and maintenance, run --auto)
// is off: it was a fifth of the git processes the tests start, on
// repositories that live a second. A repository is made without git's
// template (sample hooks, description, info/exclude): two thirds of the
// files git init wrote, each a cost on this kind of machine (see leftOut).
var gitIdentity = []string{"GIT_AUTHOR_NAME=ocdx test", "GIT_AUTHOR_EMAIL=test@example.com",
	"GIT_COMMITTER_NAME=ocdx test", "GIT_COMMITTER_EMAIL=test@example.com",
	"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0",
	"GIT_CONFIG_KEY_1=maintenance.auto", "GIT_CONFIG_VALUE_1=false", "GIT_TEMPLATE_DIR="}

// GitQuiet are gitIdentity's settings that turn git's housekeeping and
// templates off, for a test process that sets its own identity.
var GitQuiet = gitIdentity[4:]

// InitRepo is a new, empty repository on branch main in a directory of
// tb's, with the test process given gitIdentity so that gh-ocdx's own git
// commands can commit in it.
func InitRepo(tb testing.TB) string {
	tb.Helper()
	UseGitIdentity()
	dir := filepath.Join(tb.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	Git(tb, dir, "init", "--quiet", "--initial-branch=main")
	return dir
}

// UseGitIdentity gives the test process gitIdentity, for the packages whose
// tests have gh-ocdx's own git commands commit (call it from TestMain).
func UseGitIdentity() {
	for _, kv := range gitIdentity {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
}

// Git runs git in dir and returns its trimmed output; a failure fails the test.
func Git(t T, dir string, args ...string) string {
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

	built *builtDiff // the diff as NewRepo made it, for Diff
}

// builtDiff is a repository's diff as NewRepo made it and what the diff
// depends on, so Diff answers without git while none of it changed.
type builtDiff struct {
	diff, baseOID, headOID string
	config                 []byte
}

// same reports whether r is still as when its diff was made: its branches,
// its configuration and no attributes (which git reads from the work tree).
func (b *builtDiff) same(r *Repo) bool {
	dotGit := filepath.Join(r.Clone, ".git")
	config, err := os.ReadFile(filepath.Join(dotGit, "config"))
	if err != nil || !bytes.Equal(config, b.config) || readRef(dotGit, "refs/heads/"+r.Base) != b.baseOID || readRef(dotGit, "refs/heads/"+r.Head) != b.headOID {
		return false
	}
	if _, err := os.Lstat(filepath.Join(dotGit, "info", "attributes")); err == nil {
		return false
	}
	attributes := false
	filepath.WalkDir(r.Clone, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || d.Name() == ".gitattributes":
			attributes = true
			return fs.SkipAll
		case d.IsDir() && p == dotGit:
			return fs.SkipDir
		}
		return nil
	})
	return !attributes
}

// NewRepo creates a bare remote whose base branch holds baseFiles and whose
// head branch adds headFiles on top in one commit, and a clone on the head
// branch with "origin" pointing at the remote. The first call with given
// branches, files and commit dates builds them with git; later calls in the
// same test process copy that build (repoTemplate), so their commits are
// the same, as git would make them with the same dates.
func NewRepo(t T, base, head string, baseFiles, headFiles map[string]string) *Repo {
	t.Helper()
	root := t.TempDir()
	r := &Repo{Remote: filepath.Join(root, "remote.git"), Clone: filepath.Join(root, "work"), Base: base, Head: head}
	key, err := json.Marshal([]any{base, head, baseFiles, headFiles, os.Getenv("GIT_AUTHOR_DATE"), os.Getenv("GIT_COMMITTER_DATE")})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := repoTemplates.LoadOrStore(string(key), &repoTemplate{})
	tmpl := v.(*repoTemplate)
	tmpl.mu.Lock()
	defer tmpl.mu.Unlock()
	switch {
	case tmpl.built && tmpl.copyable:
		tmpl.copyTo(t, root)
	case tmpl.built:
		buildRepo(t, r, baseFiles, headFiles)
		return r
	case len(baseFiles)+len(headFiles) > maxTemplateFiles:
		// A large repository is a test's own (a scale test): reading it
		// to copy it would cost more than it saves.
		buildRepo(t, r, baseFiles, headFiles)
		tmpl.built = true
		return r
	default:
		// A test that fails while building leaves no template: the next
		// one builds again.
		buildRepo(t, r, baseFiles, headFiles)
		// Packed, each repository's objects are two files rather than a
		// file and a directory each, and its refs one file rather than a
		// file and directories each, for the copies to write.
		for _, dir := range []string{r.Remote, r.Clone} {
			Git(t, dir, "repack", "-a", "-d", "-q")
			Git(t, dir, "pack-refs", "--all")
		}
		tmpl.diff = r.Diff(t)
		tmpl.snapshot(t, root)
	}
	dotGit := filepath.Join(r.Clone, ".git")
	r.built = &builtDiff{diff: tmpl.diff, baseOID: readRef(dotGit, "refs/heads/"+base), headOID: readRef(dotGit, "refs/heads/"+head)}
	if r.built.config, err = os.ReadFile(filepath.Join(dotGit, "config")); err != nil || r.built.baseOID == "" || r.built.headOID == "" {
		r.built = nil
	}
	return r
}

// buildRepo makes r with git.
func buildRepo(t T, r *Repo, baseFiles, headFiles map[string]string) {
	t.Helper()
	root, base, head := filepath.Dir(r.Remote), r.Base, r.Head
	Git(t, root, "init", "--quiet", "--bare", "--initial-branch="+base, r.Remote)
	// A push runs the remote's gc in a clean environment, which GitQuiet
	// does not reach: the remote is told itself. And it keeps what is
	// pushed as one pack, as GitHub does, rather than a file and a
	// directory per object.
	config, err := os.OpenFile(filepath.Join(r.Remote, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = config.WriteString("[receive]\n\tautogc = false\n\tunpackLimit = 1\n")
		if cerr := config.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
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
}

// maxTemplateFiles is the most files NewRepo copies rather than builds.
const maxTemplateFiles = 200

// repoTemplates holds one repoTemplate per NewRepo key. Building a
// repository took a dozen git processes and two pushes (each a few more):
// most of the git processes of a test run, for fixtures most tests share.
var repoTemplates sync.Map

// repoTemplate is a repository NewRepo built, as files relative to its
// root: a copy is the same repository, but for the clone's origin URL,
// which names the remote by its absolute path (the only file that names
// the root; snapshot checks it).
type repoTemplate struct {
	mu       sync.Mutex
	built    bool
	copyable bool // false when a file names the root other than as the origin
	files    []templateFile
	root     string // where it was built
	diff     string // Repo.Diff of the built repository
}

type templateFile struct {
	path string // relative to the root, slash-separated
	mode fs.FileMode
	data []byte
}

// originConfig is the one file of a built repository that names its root.
const originConfig = "work/.git/config"

// snapshot records the repository NewRepo built under root.
func (tm *repoTemplate) snapshot(t T, root string) {
	t.Helper()
	files := []templateFile{}
	copyable := true
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		f := templateFile{path: filepath.ToSlash(rel), mode: info.Mode()}
		switch {
		case leftOut(f.path, d.IsDir()):
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case d.IsDir():
		case info.Mode().IsRegular():
			if f.data, err = os.ReadFile(p); err != nil {
				return err
			}
			names := bytes.Contains(f.data, []byte(root))
			if names != (f.path == originConfig) {
				copyable = false // a file names the root, or the origin is not where it is expected
			}
		default:
			copyable = false
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatalf("reading the repository NewRepo built: %v", err)
	}
	tm.files, tm.copyable, tm.root, tm.built = files, copyable, root, true
}

// leftOut reports whether a copy of a built repository leaves out the
// file or directory at path (relative to the root): what git neither needs
// nor reads for these repositories. info/ and objects/info/ (which repack
// writes) serve dumb transports; reflogs, the last commit's message and a
// pack's bitmap are git's own records and caches; git makes refs/'s
// directories as it writes a ref. A copy was 66 files and directories
// (with git's template), and each one made costs this kind of machine
// about a third of a millisecond of system time: most of the end-to-end
// tests' own.
func leftOut(path string, dir bool) bool {
	var inGit string
	for _, dotGit := range []string{"remote.git/", "work/.git/"} {
		if rest, ok := strings.CutPrefix(path, dotGit); ok {
			inGit = rest
		}
	}
	switch inGit {
	case "":
		return false
	case "info", "logs", "COMMIT_EDITMSG", "objects/info":
		return true
	}
	return strings.HasSuffix(inGit, ".bitmap") || strings.HasPrefix(inGit, "refs/") && dir // empty: the refs are packed
}

// copyTo writes the template under root, the remote's path in the
// clone's configuration changed to the copy's.
func (tm *repoTemplate) copyTo(t T, root string) {
	t.Helper()
	for _, f := range tm.files {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		if f.mode.IsDir() {
			if err := os.Mkdir(p, f.mode.Perm()); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data := f.data
		if f.path == originConfig {
			data = bytes.ReplaceAll(data, []byte(tm.root), []byte(root))
		}
		if err := os.WriteFile(p, data, f.mode.Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// Diff is the unified diff of the head branch against the base, as GitHub
// shows it for the PR.
func (r *Repo) Diff(t T) string {
	t.Helper()
	if r.built != nil && r.built.same(r) {
		return r.built.diff
	}
	return Git(t, r.Clone, "diff", r.Base+"..."+r.Head) + "\n"
}

// MoveBase adds a commit to the base branch on the remote that the clone
// does not fetch: the clone no longer holds the PR's base, so gh-ocdx
// reads the PR's diff from the fake GitHub, as it does for a clone that
// has not fetched (the diff is unchanged: the commit changes nothing).
func (r *Repo) MoveBase(t T) {
	t.Helper()
	tree := Git(t, r.Remote, "rev-parse", "refs/heads/"+r.Base+"^{tree}")
	c := Git(t, r.Remote, "commit-tree", tree, "-p", "refs/heads/"+r.Base, "-m", "the base moves on")
	Git(t, r.Remote, "update-ref", "refs/heads/"+r.Base, c)
}

// RemoteOID is the commit a branch points to on the remote.
func (r *Repo) RemoteOID(t T, branch string) string {
	t.Helper()
	if oid := readRef(r.Remote, "refs/heads/"+branch); oid != "" {
		return oid
	}
	return Git(t, r.Remote, "rev-parse", "refs/heads/"+branch)
}

// WriteFiles writes files (path → content) under dir.
func WriteFiles(t T, dir string, files map[string]string) {
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
