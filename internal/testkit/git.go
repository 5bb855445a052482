package testkit

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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

// buildRepo makes r with git: the base commit, the head commit on top,
// both branches on the remote and the clone tracking them, as pushing
// each branch would leave them (pushRepo). Git commits in the clone;
// the remote gets the clone's objects as one pack and its branches as
// packed refs without a push: two pushes were a dozen git processes of
// the twenty-odd a repository took. Both repositories end packed, for
// the copies to write fewer files. A git that does not keep refs in
// files gets the pushes.
func buildRepo(t T, r *Repo, baseFiles, headFiles map[string]string) {
	t.Helper()
	initRepos(t, r)
	dotGit := filepath.Join(r.Clone, ".git")
	if !refFiles(r.Remote) || !refFiles(dotGit) {
		pushRepo(t, r, baseFiles, headFiles)
		return
	}
	appendConfig(t, dotGit, "remote", "origin", "url", r.Remote, "fetch", "+refs/heads/*:refs/remotes/origin/*")
	commitFiles(t, r, baseFiles, headFiles)
	appendConfig(t, dotGit, "branch", r.Head, "remote", "origin", "merge", "refs/heads/"+r.Head)
	Git(t, r.Clone, "repack", "-a", "-d", "-q")
	packDir := filepath.Join(dotGit, "objects", "pack")
	packs, err := os.ReadDir(packDir)
	if err != nil || len(packs) == 0 {
		t.Fatalf("the clone's pack: %v", err)
	}
	for _, p := range packs {
		b, err := os.ReadFile(filepath.Join(packDir, p.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(r.Remote, "objects", "pack", p.Name()), b, 0o444)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	baseOID, headOID := readRef(dotGit, "refs/heads/"+r.Base), readRef(dotGit, "refs/heads/"+r.Head)
	if baseOID == "" || headOID == "" {
		t.Fatalf("the clone's branches %s and %s are not where git keeps them", r.Base, r.Head)
	}
	writePackedRefs(t, r.Remote, map[string]string{"refs/heads/" + r.Base: baseOID, "refs/heads/" + r.Head: headOID})
	writePackedRefs(t, dotGit, map[string]string{"refs/heads/" + r.Base: baseOID, "refs/heads/" + r.Head: headOID,
		"refs/remotes/origin/" + r.Base: baseOID, "refs/remotes/origin/" + r.Head: headOID})
	// The loose refs packed, and the directories they leave empty, go as
	// pack-refs removes them.
	heads := filepath.Join(dotGit, "refs", "heads")
	for _, ref := range []string{r.Base, r.Head} {
		p := filepath.Join(heads, filepath.FromSlash(ref))
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		for dir := filepath.Dir(p); dir != heads && os.Remove(dir) == nil; dir = filepath.Dir(dir) {
		}
	}
}

// initRepos makes r's bare remote and its clone, both empty. A push runs
// the remote's gc in a clean environment, which GitQuiet does not reach:
// the remote is told itself. And it keeps what is pushed as one pack, as
// GitHub does, rather than a file and a directory per object.
func initRepos(t T, r *Repo) {
	t.Helper()
	root := filepath.Dir(r.Remote)
	Git(t, root, "init", "--quiet", "--bare", "--initial-branch="+r.Base, r.Remote)
	appendConfig(t, r.Remote, "receive", "", "autogc", "false", "unpackLimit", "1")
	Git(t, root, "init", "--quiet", "--initial-branch="+r.Base, r.Clone)
}

// commitFiles commits baseFiles on the base branch and headFiles on top
// on the head branch, which the clone is left on.
func commitFiles(t T, r *Repo, baseFiles, headFiles map[string]string) {
	t.Helper()
	WriteFiles(t, r.Clone, baseFiles)
	Git(t, r.Clone, "add", "-A")
	Git(t, r.Clone, "commit", "--quiet", "--allow-empty", "-m", "base")
	Git(t, r.Clone, "checkout", "--quiet", "-b", r.Head)
	WriteFiles(t, r.Clone, headFiles)
	Git(t, r.Clone, "add", "-A")
	Git(t, r.Clone, "commit", "--quiet", "--allow-empty", "-m", "change")
}

// pushRepo makes r as buildRepo does, with git's pushes: the clone's
// origin, each branch pushed, the head's upstream set, both repacked.
func pushRepo(t T, r *Repo, baseFiles, headFiles map[string]string) {
	t.Helper()
	Git(t, r.Clone, "remote", "add", "origin", r.Remote)
	commitFiles(t, r, baseFiles, headFiles)
	Git(t, r.Clone, "push", "--quiet", "origin", r.Base)
	Git(t, r.Clone, "push", "--quiet", "--set-upstream", "origin", r.Head)
	for _, dir := range []string{r.Remote, r.Clone} {
		Git(t, dir, "repack", "-a", "-d", "-q")
		Git(t, dir, "pack-refs", "--all")
	}
}

// refFiles reports whether the repository at gitDir keeps its refs in
// files (loose and packed-refs), which buildRepo writes.
func refFiles(gitDir string) bool {
	config, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil || bytes.Contains(bytes.ToLower(config), []byte("refstorage")) {
		return false
	}
	_, err = os.Stat(filepath.Join(gitDir, "reftable"))
	return os.IsNotExist(err)
}

// appendConfig adds a section of key, value pairs to the configuration of
// the repository at gitDir, as git config writes it.
func appendConfig(t T, gitDir, section, sub string, kv ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("[" + section)
	if sub != "" {
		b.WriteString(` "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(sub) + `"`)
	}
	b.WriteString("]\n")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("\t" + kv[i] + " = " + configValue(kv[i+1]) + "\n")
	}
	f, err := os.OpenFile(filepath.Join(gitDir, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(b.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// configValue is v as git config writes a value: quoted when it has a
// comment character or spaces at an end, with its quotes, backslashes,
// tabs and newlines escaped.
func configValue(v string) string {
	quote := strings.HasPrefix(v, " ") || strings.HasSuffix(v, " ") || strings.ContainsAny(v, ";#")
	v = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`).Replace(v)
	if quote {
		return `"` + v + `"`
	}
	return v
}

// writePackedRefs writes refs (name → commit id) as the packed-refs file
// of the repository at gitDir, as git pack-refs writes it.
func writePackedRefs(t T, gitDir string, refs map[string]string) {
	t.Helper()
	names := make([]string, 0, len(refs))
	for name := range refs {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
	for _, name := range names {
		b.WriteString(refs[name] + " " + name + "\n")
	}
	if err := os.WriteFile(filepath.Join(gitDir, "packed-refs"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
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
	c := Git(t, r.Remote, "commit-tree", "refs/heads/"+r.Base+"^{tree}", "-p", "refs/heads/"+r.Base, "-m", "the base moves on")
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
