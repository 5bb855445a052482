// Package git runs the few git commands gh-ocdx needs on the user's checkout:
// preflight questions (work tree? clean? which branch?), commit checks, and
// the one push, which is never a force push.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// ErrNotRepo: the directory is not inside a git work tree.
var ErrNotRepo = errors.New("not a git work tree")

// Repo is a checkout.
type Repo struct {
	Dir string
	// index is the index file's path, as Open read it with the work
	// tree's ("" when the Repo was not opened: asked when needed).
	index string

	// known holds what git said of commits named by their full IDs: that
	// one is here (a commit, once here, stays) and that one is an ancestor
	// of another (history does not change). A run asks each once: every
	// question is a git process.
	known sync.Map
	// asking is held while HasCommits asks: a round reads the PR's diff
	// while the secret scan reads its history, both asking for the same
	// base and head when their streams fail, and the later question finds
	// them known rather than starting git again.
	asking sync.Mutex
	// diffed is the last diff DiffSince read, by the commits (or tree)
	// it is from and to: a re-review reads the since-diff and then the
	// whole diff of the same two commits, the same answer when no base
	// came in between.
	diffed struct {
		sync.Mutex
		from, to, diff string
	}
}

// Open finds the work tree containing dir.
// The index file's path comes in the same process, for Snapshot.
func Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := run(ctx, dir, "rev-parse", "--show-toplevel", "--path-format=absolute", "--git-path", "index")
	top, index, _ := strings.Cut(out, "\n")
	if err != nil || top == "" {
		return nil, fmt.Errorf("%s is %w: run gh ocdx inside a clone of the repository", dir, ErrNotRepo)
	}
	return &Repo{Dir: top, index: index}, nil
}

// Run runs git with args in the work tree and returns its trimmed stdout.
func (r *Repo) Run(ctx context.Context, args ...string) (string, error) {
	return run(ctx, r.Dir, args...)
}

// Command is a git command in the work tree, built as every git command
// gh-ocdx runs is: hardened and without credentials (see command). The
// caller sets its output and runs it.
func (r *Repo) Command(ctx context.Context, args ...string) *exec.Cmd {
	return command(ctx, r.Dir, false, args...)
}

// hardening is given to every git command. The work tree is the fix
// agent's to write, and git runs programs named in the configuration of
// any repository it enters: a repository nested in the work tree (an
// embedded repository or a submodule whose .git the agent wrote) would
// have git run its fsmonitor, hooks or filters. So git never enters one,
// and what git could run from configuration is off. And git takes no lock
// it can do without (the index refresh of status and diff stays in
// memory): the user's own git, or their editor's, never finds the index
// locked by gh-ocdx's questions.
var hardening = []string{
	"--no-optional-locks",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "submodule.recurse=false",
	"-c", "diff.ignoreSubmodules=all",
	"-c", "status.submoduleSummary=false",
	"-c", "core.pager=cat",
}

// Credentials are the variables no git command but the push gets, nor the
// commands the fix agent runs: nothing else needs GitHub or a model, and
// what runs may have been planted by the pull request.
var Credentials = []string{"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"}

// WithoutCredentials is env without the Credentials variables.
func WithoutCredentials(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(Credentials, k)
	})
}

// command builds a git command in dir: the hardening, then args. Only a
// command that talks to the remote (remote true) keeps the credentials,
// which gh's credential helper may need, and may use a local-path remote;
// every other command refuses git's file transport, which only a
// submodule would reach for.
func command(ctx context.Context, dir string, remote bool, args ...string) *exec.Cmd {
	file := "never"
	if remote {
		file = "user" // a remote the user configured, never one a submodule names
	}
	argv := append(slices.Clone(hardening), "-c", "protocol.file.allow="+file)
	c := exec.CommandContext(ctx, "git", append(argv, args...)...)
	c.Dir = dir
	if !remote {
		c.Env = WithoutCredentials(os.Environ())
	}
	return c
}

func run(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := runRaw(ctx, dir, args...)
	return strings.TrimSpace(out), err
}

// runRaw is run without trimming, for NUL-separated output where a space
// may belong to a file name.
func runRaw(ctx context.Context, dir string, args ...string) (string, error) {
	var out bytes.Buffer
	err := runIO(ctx, dir, nil, &out, args...)
	return out.String(), err
}

// RunIO runs git with args in the work tree, stdin as its input (nil for
// none), and writes its output to stdout as it comes: for output Run would
// hold whole and trim, such as file contents from cat-file --batch.
func (r *Repo) RunIO(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	return runIO(ctx, r.Dir, stdin, stdout, args...)
}

func runIO(ctx context.Context, dir string, stdin io.Reader, stdout io.Writer, args ...string) error {
	var errOut bytes.Buffer
	c := command(ctx, dir, false, args...)
	c.Stdin, c.Stdout, c.Stderr = stdin, stdout, &errOut
	if err := c.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return nil
}

// Dirty lists the paths with uncommitted changes (staged, unstaged or
// untracked, not ignored); empty means clean. One git status, whatever the
// user's status settings.
func (r *Repo) Dirty(ctx context.Context) ([]string, error) {
	st, err := r.status(ctx, false)
	return st.Dirty, err
}

// Branch is the checked-out branch; "" on a detached HEAD.
func (r *Repo) Branch(ctx context.Context) (string, error) {
	out, err := r.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		if _, herr := r.Run(ctx, "rev-parse", "HEAD"); herr == nil {
			return "", nil
		}
		return "", err
	}
	return out, nil
}

// Status is what git status says of the work tree.
type Status struct {
	Branch string   // checked out; "" on a detached HEAD
	Head   string   // the commit HEAD names; "" on a branch with no commit yet
	Dirty  []string // as Dirty lists them
}

// Status is the branch, the head and the uncommitted changes: the
// questions every verb starts with, in one git process rather than one
// each (docs/architecture.md, The verbs and their tests).
func (r *Repo) Status(ctx context.Context) (Status, error) {
	st, err := r.status(ctx, true)
	if err == nil && st.Branch == detached {
		// A branch may be named "(detached)": git status says the same of
		// it as of a detached HEAD, and symbolic-ref tells them apart.
		st.Branch, _ = r.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	}
	if st.Head != "" {
		r.known.Store("commit "+st.Head, true)
	}
	return st, err
}

// detached is what git status --branch names a detached HEAD.
const detached = "(detached)"

// status reads git status --porcelain=v2 -z, with the branch headers when
// branch is set. Its names are NUL-separated, so none is quoted or
// mangled, and relative to the work tree's root.
func (r *Repo) status(ctx context.Context, branch bool) (Status, error) {
	args := []string{"status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=all", "--no-renames"}
	if branch {
		args = append(args, "--branch", "--no-ahead-behind") // no walk of history to count commits
	}
	out, err := runRaw(ctx, r.Dir, args...)
	if err != nil {
		return Status{}, err
	}
	// A header "# key value", or an entry whose path follows its fields:
	// "1 XY sub mH mI mW hH hI path" (changed), "u XY sub m1 m2 m3 mW h1
	// h2 h3 path" (unmerged), "? path" (untracked).
	fields := map[byte]int{'1': 8, 'u': 10, '?': 1}
	var st Status
	for _, e := range strings.Split(out, "\x00") {
		switch {
		case strings.HasPrefix(e, "# branch.oid "):
			if oid := strings.TrimPrefix(e, "# branch.oid "); isSHA(oid) {
				st.Head = oid // else "(initial)": no commit yet
			}
		case strings.HasPrefix(e, "# branch.head "):
			st.Branch = strings.TrimPrefix(e, "# branch.head ")
		case e != "" && fields[e[0]] > 0:
			if f := strings.SplitN(e, " ", fields[e[0]]+1); len(f) == fields[e[0]]+1 && !slices.Contains(st.Dirty, f[len(f)-1]) {
				st.Dirty = append(st.Dirty, f[len(f)-1])
			}
		}
	}
	return st, nil
}

// PushRemote is the remote branch's upstream is on (as gh pr checkout
// sets it), else origin.
func (r *Repo) PushRemote(ctx context.Context, branch string) string {
	if rem, err := r.Run(ctx, "config", "--get", "branch."+branch+".remote"); err == nil && rem != "" && rem != "." {
		return rem
	}
	return "origin"
}

// Head is the commit checked out.
func (r *Repo) Head(ctx context.Context) (string, error) {
	head, err := r.Run(ctx, "rev-parse", "HEAD")
	if err == nil && isSHA(head) {
		r.known.Store("commit "+head, true)
	}
	return head, err
}

// HasCommit reports whether sha names a commit in this repository.
func (r *Repo) HasCommit(ctx context.Context, sha string) bool {
	return r.HasCommits(ctx, sha)
}

// HasCommits reports whether every name names a commit in this repository,
// with one git process for those not known to be here.
func (r *Repo) HasCommits(ctx context.Context, names ...string) bool {
	r.asking.Lock()
	defer r.asking.Unlock()
	var ask strings.Builder
	asked := 0
	for _, n := range names {
		if !isCommitName(n) || strings.ContainsAny(n, "\n\x00") {
			return false
		}
		if _, ok := r.known.Load("commit " + n); !ok || !isSHA(n) {
			ask.WriteString(n + "^{commit}\n")
			asked++
		}
	}
	if asked == 0 {
		return true
	}
	var out bytes.Buffer
	if err := r.RunIO(ctx, strings.NewReader(ask.String()), &out, "cat-file", "--batch-check=%(objectname)"); err != nil {
		return false
	}
	found := strings.Fields(out.String()) // an ID each, or "<name> missing"
	if len(found) != asked {
		return false
	}
	for _, oid := range found {
		if !isSHA(oid) {
			return false
		}
		r.known.Store("commit "+oid, true)
	}
	return true
}

// isAncestor reports whether commit a is an ancestor of commit b (or b
// itself); false too when either is not a commit here.
func (r *Repo) isAncestor(ctx context.Context, a, b string) bool {
	key := "ancestor " + a + " " + b
	if _, ok := r.known.Load(key); ok && isSHA(a) && isSHA(b) {
		return true
	}
	if _, err := r.Run(ctx, "merge-base", "--is-ancestor", "--end-of-options", a, b); err != nil {
		return false // not an ancestor, or not here yet: asked again next time
	}
	if isSHA(a) && isSHA(b) {
		r.known.Store(key, true)
	}
	return true
}

// mergeBase is the newest commit a and b share (merge-base fails when
// either is not a commit here). Of full IDs it is known once asked, and
// so is that it is an ancestor of both: the next round's question whether
// the base's merge base is in the head it reviewed is answered by this
// round's merge base of that head.
func (r *Repo) mergeBase(ctx context.Context, a, b string) (string, bool) {
	key := "merge-base " + a + " " + b
	if v, ok := r.known.Load(key); ok {
		return v.(string), true
	}
	mb, err := r.Run(ctx, "merge-base", "--end-of-options", a, b)
	if err != nil || !isSHA(mb) {
		return "", false
	}
	if isSHA(a) && isSHA(b) {
		r.known.Store(key, mb)
		r.known.Store("ancestor "+mb+" "+a, true)
		r.known.Store("ancestor "+mb+" "+b, true)
	}
	return mb, true
}

// isCommitName reports whether a name could be given to git as a commit:
// not empty, not an option.
func isCommitName(sha string) bool {
	return sha != "" && !strings.HasPrefix(sha, "-")
}

// DiffSince is what the PR's own commits changed from commit from to
// commit to, when from is an ancestor of to and both are in the
// repository; ok is false otherwise (a force-push or a rebase left from
// behind). What merging the base branch (base, its tip; "" for none)
// brought in since from is left out: the diff starts from the merge of
// from with the newest base commit to holds, as git merge-tree writes it,
// so a conflict's resolution stays in (docs/architecture.md, Re-reviews).
func (r *Repo) DiffSince(ctx context.Context, from, to, base string) (diff string, ok bool) {
	// merge-base fails as well when either is not a commit here: no
	// cat-file first.
	if !isCommitName(from) || !isCommitName(to) {
		return "", false
	}
	if !r.isAncestor(ctx, from, to) {
		return "", false
	}
	start := from
	if merged, ok := r.mergedBase(ctx, from, to, base); ok {
		start = merged
	}
	return r.pinnedDiffOf(ctx, start, to)
}

// pinnedDiffOf is the diff from start to to (full IDs), with the same
// pinned settings as the PR's diff: a user's diff.renames or context must
// not move the lines previous findings are followed by. The last one read
// is kept: two commits' diff does not change.
func (r *Repo) pinnedDiffOf(ctx context.Context, start, to string) (string, bool) {
	r.diffed.Lock()
	defer r.diffed.Unlock()
	if r.diffed.from == start && r.diffed.to == to && isSHA(start) && isSHA(to) {
		return r.diffed.diff, true
	}
	d, err := runRaw(ctx, r.Dir, pinnedDiff(start, to, "--")...)
	if err != nil {
		return "", false
	}
	r.diffed.from, r.diffed.to, r.diffed.diff = start, to, d
	return d, true
}

// mergedBase is the tree of from merged with the newest commit of base
// that to holds, when to holds one that from does not (the author merged
// the base branch in since from); ok is false otherwise, or when base is
// not in the repository. From is an ancestor of to.
func (r *Repo) mergedBase(ctx context.Context, from, to, base string) (tree string, ok bool) {
	if !isCommitName(base) {
		return "", false
	}
	// The base's tip in from, as when the base did not move: nothing of it
	// came in since, in one question, and the tip is in to as well, which
	// the next round, from to, finds known.
	if r.isAncestor(ctx, base, from) {
		if isSHA(base) && isSHA(to) {
			r.known.Store("ancestor "+base+" "+to, true)
		}
		return "", false
	}
	b, ok := r.mergeBase(ctx, to, base)
	if !ok {
		return "", false
	}
	if b != base && r.isAncestor(ctx, b, from) { // base itself is not, as asked
		return "", false // nothing of the base came in since from
	}
	// Exit 1 is a merge with conflicts: its tree holds the conflict
	// markers, and the diff to the PR's head shows how they were resolved.
	var out bytes.Buffer
	c := r.Command(ctx, "merge-tree", "--write-tree", "--no-messages", "--end-of-options", from, b)
	c.Stdout = &out
	err := c.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return "", false
	}
	tree, _, _ = strings.Cut(strings.TrimSpace(out.String()), "\n")
	return tree, isSHA(tree)
}

// Ahead is how many commits head, the commit checked out as the caller
// read it, has on top of base, both full IDs: 0 when base is head (git is
// not asked), is no full ID, is not in the repository, or is not an
// ancestor of head (head is behind it, or they diverged).
func (r *Repo) Ahead(ctx context.Context, base, head string) int {
	// Full IDs only: git reads "X...Y" whole as one name when X alone
	// names nothing, and a name such as :/text could then match a commit.
	if !isSHA(base) || !isSHA(head) || base == head {
		return 0
	}
	// Commits of base not in head, and of head not in base.
	out, err := r.Run(ctx, "rev-list", "--left-right", "--count", "--end-of-options", base+"..."+head)
	behind, ahead, _ := strings.Cut(out, "\t")
	n, aerr := strconv.Atoi(ahead)
	if err != nil || aerr != nil || behind != "0" {
		return 0 // not a commit here, or not an ancestor
	}
	return n
}

// Log is `git log --oneline base..HEAD`, newest first.
func (r *Repo) Log(ctx context.Context, base string) ([]string, error) {
	out, err := r.Run(ctx, "log", "--oneline", "--no-decorate", base+"..HEAD")
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(out, "\n"), nil
}

// Diffstat is `git diff --stat base..HEAD`.
func (r *Repo) Diffstat(ctx context.Context, base string) (string, error) {
	return r.Run(ctx, "diff", "--stat", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", base+"..HEAD")
}

// PushError is a push that did not happen: the remote refused it
// (protected branch, …; Stderr is its message), or the PR's branch moved
// since gh-ocdx reviewed it (Moved).
type PushError struct {
	Remote, Branch, Stderr string
	// Moved: the branch is no longer at Reviewed (new commits, or reset by
	// its author), so pushing could bring back what was removed or drop
	// what was added.
	Moved    bool
	Reviewed string
}

func (e *PushError) Error() string {
	if e.Moved {
		return fmt.Sprintf("the PR's branch moved on GitHub since gh-ocdx reviewed %s (%s/%s); nothing was pushed; your fix commits are still on your local branch; fetch, look, re-run", text.ShortOID(e.Reviewed), e.Remote, e.Branch)
	}
	return fmt.Sprintf("the push of HEAD to %s/%s was rejected; nothing was forced and your commits are still here (fetch and rebase, or resolve it by hand, then re-run): %s",
		e.Remote, e.Branch, e.Stderr)
}

// Push sends head, the commit verified (a full ID), to branch on remote as
// a fast-forward of reviewed, the head gh-ocdx reviewed, and never
// otherwise: gh-ocdx never force-pushes. Head is pushed by its ID, not as
// HEAD: what was verified and shown is what is pushed, whatever was
// committed since.
//
// Two checks make sure of it. Here, before pushing, head must descend from
// reviewed (known after, so the next round's re-review does not ask). In
// the push itself, --force-with-lease=<ref>:<reviewed> has the remote
// update the branch only if it still points at reviewed, atomically.
// The lease is stricter than git's plain fast-forward rule, not looser: a
// plain push would also accept a branch its author reset to an older
// commit, and put the removed commits back. With both checks the update is
// always from reviewed to a descendant of it, so nobody's commit is lost or
// restored; a branch that moved gives a *PushError with Moved set.
func (r *Repo) Push(ctx context.Context, remote, branch, reviewed, head string) error {
	if strings.HasPrefix(remote, "-") || strings.HasPrefix(branch, "-") || strings.ContainsAny(branch, ": +") {
		return fmt.Errorf("refusing to push to remote %q branch %q: not a plain name", remote, branch)
	}
	if !isSHA(reviewed) || !isSHA(head) {
		return fmt.Errorf("refusing to push %q to %s/%s over the reviewed head %q: not commit ids", head, remote, branch, reviewed)
	}
	if !r.isAncestor(ctx, reviewed, head) {
		return fmt.Errorf("nothing was pushed: your HEAD does not contain %s, the head of %s that gh-ocdx reviewed; bring your branch up to date with it (git pull --ff-only), then re-run", text.ShortOID(reviewed), branch)
	}
	ref := "refs/heads/" + branch
	var errOut bytes.Buffer
	// No hook runs (the fix agent may have written one, and it would run
	// with the user's credentials), and no submodule is pushed.
	c := command(ctx, r.Dir, true, "push", "--no-verify", "--recurse-submodules=no", "--porcelain",
		"--force-with-lease="+ref+":"+reviewed, remote, head+":"+ref)
	c.Stderr = &errOut
	out, err := c.Output()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(errOut.String() + "\n" + string(out))
		// The lease failed: the porcelain line reads "!<TAB>HEAD:<ref><TAB>[rejected] (stale info)".
		return &PushError{Remote: remote, Branch: branch, Stderr: msg, Reviewed: reviewed, Moved: strings.Contains(string(out), "(stale info)")}
	}
	return nil
}

// isSHA reports whether s is a full hexadecimal object id (SHA-1 or SHA-256).
func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// prDiff are the arguments of the PR's diff (git diff base...head) with
// git's defaults pinned, which GitHub's diff of a PR follows: the user's
// configuration (prefixes, context, renames, order, quoting, an external
// diff or textconv) must not change what the secret scan and the reviewers
// read, nor the lines inline comments anchor on. Configuration, not flags,
// where an older git would refuse an unknown flag. A submodule pointer is
// shown as GitHub shows it ("Subproject commit"), against hardening's
// default: a diff of two commits never enters a submodule's directory, and
// one that hid gitlinks counted them as files left out of the review.
func prDiff(base, head string, paths []string) []string {
	return pinnedDiff(append([]string{base + "..." + head, "--"}, paths...)...)
}

// pinnedConfig are git's diff defaults, pinned (prDiff), and diffFlags
// the flags every diff of a PR is written with.
var (
	pinnedConfig = []string{"-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false", "-c", "diff.context=3",
		"-c", "diff.interHunkContext=0", "-c", "diff.renames=true", "-c", "diff.algorithm=myers",
		"-c", "diff.indentHeuristic=true", "-c", "diff.suppressBlankEmpty=false", "-c", "diff.relative=false",
		"-c", "diff.submodule=short", "-c", "core.quotePath=true", "-c", "core.abbrev=7",
		"-c", "core.attributesFile=" + os.DevNull, "--literal-pathspecs"}
	diffFlags = []string{"--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", "-O" + os.DevNull}
)

// pinnedDiff is git diff of revs with git's defaults pinned (prDiff).
func pinnedDiff(revs ...string) []string {
	args := slices.Concat(pinnedConfig, []string{"diff"}, diffFlags, []string{"--end-of-options"})
	return append(args, revs...)
}

// PRDiff is the diff of paths from the merge base of base and head to
// head (git diff base...head), when both commits are in the repository.
func (r *Repo) PRDiff(ctx context.Context, base, head string, paths []string) (diff []byte, ok bool) {
	// The diff fails when either is not a commit here: no cat-file first.
	if !isCommitName(base) || !isCommitName(head) {
		return nil, false
	}
	var b bytes.Buffer
	c := r.diffCommand(ctx, base, head, paths)
	c.Stdout = &b
	if err := c.Run(); err != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// diffCommand is git diff base...head -- paths, as prDiff pins it.
func (r *Repo) diffCommand(ctx context.Context, base, head string, paths []string) *exec.Cmd {
	c := r.Command(ctx, prDiff(base, head, paths)...)
	// The work tree's .gitattributes still can mark a file binary: the
	// loop reads such a diff from GitHub instead.
	pinEnv(c)
	return c
}

// OpenPRDiff streams the PR's whole diff (git diff base...head) as it is
// written, as GitHub would send it: the diff costs no request, and is
// never held whole. Close waits for git and says whether the diff was
// whole: ErrNotHere when a commit is not in the repository, another error
// (no merge base in a shallow clone, say) when the stream was not the
// PR's diff. Full IDs only: git reads "X...Y" whole as one name when X
// alone names nothing, and no question first says that X does.
func (r *Repo) OpenPRDiff(ctx context.Context, base, head string) (diff io.ReadCloser, ok bool) {
	if !isSHA(base) || !isSHA(head) {
		return nil, false
	}
	s, ok := r.stream(ctx, "diff", prDiff(base, head, nil), nil)
	if !ok {
		return nil, false
	}
	s.missing = r.missing(ctx, base, head)
	return s, true
}

// ErrNotHere is what a stream of commits the repository does not have
// (a clone that has not fetched them) ends with: the caller reads them
// elsewhere. It is an fs.ErrNotExist.
var ErrNotHere = fmt.Errorf("the commits are not in this clone: %w", fs.ErrNotExist)

// missing says, once a stream of base and head failed, whether for want
// of either: asked then, not before every stream, since a clone mostly
// has the commits it is asked about.
func (r *Repo) missing(ctx context.Context, base, head string) func() bool {
	return func() bool { return ctx.Err() == nil && !r.HasCommits(ctx, base, head) }
}

// stream is a running git command's output.
type stream struct {
	io.ReadCloser
	c      *exec.Cmd
	errOut *bytes.Buffer
	eof    bool
	name   string // git's command, for errors
	// missing, when set, says whether git failed for want of its commits.
	missing func() bool
}

func (s *stream) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	if err == io.EOF {
		s.eof = true
	}
	return n, err
}

// Close ends the command (killed when its output was not read to the end)
// and reports a failure.
func (s *stream) Close() error {
	if !s.eof {
		_ = s.c.Process.Kill()
	}
	err := s.c.Wait()
	if err != nil && s.eof && s.missing != nil && s.missing() {
		return ErrNotHere
	}
	if err != nil {
		msg := strings.TrimSpace(s.errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("git %s: %s", s.name, msg)
	}
	if !s.eof {
		return fmt.Errorf("git %s: %w", s.name, errNotWhole)
	}
	return nil
}
