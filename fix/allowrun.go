package fix

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/repofs"
)

// request is a run_command call that passed the rules.
type request struct {
	// git is read-only git, run as gh-ocdx rebuilds it; nil otherwise.
	git *gitRead
	// paths are the arguments that name files, checked against the work
	// tree (symlinks followed) before the command runs.
	paths []string
}

// allowRun decides whether run_command may run argv, given the verify
// commands of the configuration (split). Allowed: a verify command exactly;
// a test command of the verify list with more arguments (the verify entry
// up to its "test" word is the prefix: "go test ./..." allows
// "go test ./fix -run TestX"), which are test names and paths inside the
// repository, and for go test a few harmless flags; read-only git (status,
// diff, log, show) with revisions, paths inside the repository and
// harmless options. Everything else is refused with the reason. Only the
// configuration feeds verify: nothing the PR says can widen this.
func allowRun(argv []string, verify [][]string) (request, error) {
	if len(argv) == 0 || argv[0] == "" {
		return request{}, errors.New(`argv is empty: give the program and its arguments, e.g. ["git", "status"]`)
	}
	for _, v := range verify {
		if slices.Equal(argv, v) {
			return request{}, nil
		}
		if k := slices.Index(v, "test"); k >= 1 && len(argv) > k && slices.Equal(argv[:k+1], v[:k+1]) {
			paths, err := testArgs(v[:k+1], argv[k+1:])
			return request{paths: paths}, err
		}
	}
	name := path.Base(argv[0])
	if argv[0] == "git" {
		sub := ""
		if len(argv) > 1 {
			sub = argv[1]
		}
		switch {
		case slices.Contains(readOnlyGit, sub):
			g, err := parseGit(sub, argv[2:])
			return request{git: g}, err
		case sub == "push":
			return request{}, errors.New("git push is not allowed: gh-ocdx pushes your commits itself once verification passes, and never with force; commit with git_commit and finish with the envelope")
		case sub == "add" || sub == "commit":
			return request{}, fmt.Errorf("git %s is not allowed through run_command: use the git_commit tool, which stages and commits", sub)
		default:
			return request{}, fmt.Errorf("git %s is not allowed: it could discard work, move the branch or reach the network; the git you have is status, diff, log and show (run_command) and git_commit", sub)
		}
	}
	if slices.Contains(networkTools, name) {
		return request{}, fmt.Errorf("%s is not allowed: the fix agent has no network access", name)
	}
	return request{}, fmt.Errorf("%s is not allowed: run_command runs only the verify commands (%s), their test commands with more arguments, and git status, diff, log and show", argv[0], describeVerify(verify))
}

// goTestFlags are the go test flags a test command may add, and whether
// each takes a value. None runs another program, reads a configuration or
// writes a file: -exec, -toolexec, -overlay, -modfile, -ldflags, -o, the
// coverage and profile outputs and -args are left out on purpose.
var goTestFlags = map[string]bool{
	"run": true, "skip": true, "count": true, "timeout": true, "covermode": true, "bench": true, "benchtime": true,
	"shuffle": true, "parallel": true, "cpu": true, "list": true, "tags": true,
	"v": false, "short": false, "race": false, "cover": false, "failfast": false, "benchmem": false, "json": false,
}

// goTestRisky are refused with the reason.
var goTestRisky = []string{"exec", "toolexec", "overlay", "modfile", "ldflags", "gcflags", "asmflags", "o", "c", "args", "pgo",
	"coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir"}

func goTestFlagList() string {
	var names []string
	for f, takes := range goTestFlags {
		if takes {
			f += " VALUE"
		}
		names = append(names, "-"+f)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// testArgs checks the arguments a test command (prefix, e.g. go test) gets
// beyond its verify entry and returns those that name paths. Other tools'
// options are refused: they can name a configuration or a runner that
// executes code (cargo test --config, pytest -p, npm's --script-shell).
func testArgs(prefix, extra []string) ([]string, error) {
	isGo := path.Base(prefix[0]) == "go" && prefix[1] == "test"
	shown := strings.Join(prefix, " ")
	var paths []string
	for i := 0; i < len(extra); i++ {
		a := extra[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if _, err := repofs.Clean(a); err != nil {
				return nil, fmt.Errorf("%s is not allowed in a test command: %w", a, err)
			}
			paths = append(paths, a)
			continue
		}
		if !isGo {
			return nil, fmt.Errorf("%s is not allowed in a test command: %s takes more test names or paths inside the repository, not options (an option can name a configuration or a runner that executes code)", a, shown)
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		name = strings.TrimPrefix(name, "test.")
		takes, known := goTestFlags[name]
		switch {
		case !known && slices.Contains(goTestRisky, name):
			return nil, fmt.Errorf("%s is not allowed in a test command: it would run another program, read another configuration or write files; the flags %s may add are %s", a, shown, goTestFlagList())
		case !known:
			return nil, fmt.Errorf("%s is not allowed in a test command: the flags %s may add are %s", a, shown, goTestFlagList())
		case !takes && hasValue && value != "true" && value != "false":
			return nil, fmt.Errorf("%s %s: -%s takes no value (or =true, =false)", shown, a, name)
		case takes && !hasValue:
			if i+1 == len(extra) {
				return nil, fmt.Errorf("%s %s needs a value: -%s VALUE or -%s=VALUE", shown, a, name, name)
			}
			i++
		}
	}
	return paths, nil
}

// gitRead is a read-only git command: its options, the arguments before
// "--" (revisions or paths, told apart against the repository) and the
// paths after it.
type gitRead struct {
	sub      string
	opts     []string
	operands []string
	paths    []string
}

// gitOptions are the options read-only git may take, per subcommand:
// "--x" is a flag, "--x=" takes a value after "=", "-x…" takes one
// attached ("-U5"). None writes a file, reads one outside the repository,
// or runs a program (no --output, --no-index, --ext-diff, --textconv,
// --exec, -O, --show-signature).
var gitOptions = func() map[string][]string {
	diff := []string{"-p", "-u", "--patch", "-s", "--no-patch", "--raw", "--stat", "--stat=", "--numstat", "--shortstat",
		"--summary", "--name-only", "--name-status", "--no-color", "-w", "--ignore-all-space", "-b", "--ignore-space-change",
		"--ignore-blank-lines", "--minimal", "--patience", "--histogram", "-R", "--full-index", "--abbrev", "--abbrev=",
		"--no-renames", "-M", "-M…", "--find-renames", "--find-renames=", "--word-diff", "--word-diff=", "--check", "-z",
		"-a", "--text", "-U…", "--unified=", "--diff-filter="}
	commits := []string{"--oneline", "--format=", "--pretty=", "--date=", "--decorate", "--no-decorate", "--abbrev-commit",
		"--no-abbrev-commit", "--first-parent"}
	return map[string][]string{
		"diff":   slices.Concat(diff, []string{"--cached", "--staged", "--merge-base"}),
		"show":   slices.Concat(diff, commits),
		"log":    slices.Concat(diff, commits, []string{"--no-merges", "--merges", "--reverse", "--graph", "--follow", "-i", "--regexp-ignore-case", "--topo-order", "--date-order", "--author=", "--committer=", "--grep=", "--since=", "--until=", "--after=", "--before=", "--max-count=", "--skip=", "-n", "-n…", "-S…", "-G…", "--pickaxe-all"}),
		"status": {"-s", "--short", "-b", "--branch", "--porcelain", "--porcelain=", "--long", "-z", "--show-stash", "-u", "-u…", "--untracked-files", "--untracked-files=", "--ahead-behind", "--no-ahead-behind"},
	}
}()

// gitFixed are the options gh-ocdx adds: no external diff or textconv
// program, no look inside a submodule, and no notes (refs of their own,
// not the PR's commits).
var gitFixed = map[string][]string{
	"diff":   {"--no-ext-diff", "--no-textconv", "--ignore-submodules=all"},
	"show":   {"--no-ext-diff", "--no-textconv", "--no-notes"},
	"log":    {"--no-ext-diff", "--no-textconv", "--no-notes"},
	"status": {"--ignore-submodules=all"},
}

func gitAllowed(sub, opt string) bool {
	for _, o := range gitOptions[sub] {
		switch {
		case opt == o:
			return true
		case strings.HasSuffix(o, "=") && strings.HasPrefix(opt, o):
			return true
		case strings.HasSuffix(o, "…") && strings.HasPrefix(opt, strings.TrimSuffix(o, "…")) && len(opt) > len(o)-len("…"):
			return true
		}
	}
	return sub == "log" && len(opt) > 1 && strings.Trim(opt[1:], "0123456789") == "" // -5: the last five
}

func gitOptionList(sub string) string {
	return strings.ReplaceAll(strings.Join(gitOptions[sub], " "), "…", "N")
}

// parseGit checks the arguments of git sub (status, diff, log, show).
func parseGit(sub string, args []string) (*gitRead, error) {
	g := &gitRead{sub: sub}
	rule := fmt.Sprintf("read-only git takes revisions, paths inside the repository (after --) and these options: %s", gitOptionList(sub))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			g.paths = append(g.paths, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && a != "-":
			if !gitAllowed(sub, a) {
				return nil, fmt.Errorf("git %s %s is not allowed: %s", sub, a, rule)
			}
			if (strings.HasPrefix(a, "--format=") || strings.HasPrefix(a, "--pretty=")) && (strings.Contains(a, "%G") || strings.Contains(a, "%(describe")) {
				return nil, fmt.Errorf("git %s %s is not allowed: %%G placeholders run gpg and %%(describe) runs git describe; use other placeholders", sub, a)
			}
			if a == "-n" {
				if i+1 == len(args) || strings.Trim(args[i+1], "0123456789") != "" || args[i+1] == "" {
					return nil, fmt.Errorf("git %s -n needs a number: -n 5", sub)
				}
				g.opts = append(g.opts, a, args[i+1])
				i++
				continue
			}
			g.opts = append(g.opts, a)
		default:
			if err := gitPath(sub, a); err != nil {
				return nil, err
			}
			if sub != "status" && strings.HasPrefix(a, ":") && !strings.HasPrefix(a, ":(") && !strings.HasPrefix(a, ":!") {
				return nil, fmt.Errorf("git %s %s is not allowed: %s", sub, a, colonRule)
			}
			g.operands = append(g.operands, a)
		}
	}
	for _, p := range g.paths {
		if err := gitPath(sub, p); err != nil {
			return nil, err
		}
		if strings.HasPrefix(p, ":") {
			return nil, fmt.Errorf("git %s -- %s is not allowed: pathspec magic (:(…), :!, :/) is not accepted; give plain paths relative to the repository root", sub, p)
		}
	}
	return g, nil
}

// gitPath refuses an argument that, as a path, would leave the repository
// or enter .git: an absolute path, "..", a .git component.
func gitPath(sub, a string) error {
	if _, err := repofs.Clean(a); err != nil {
		return fmt.Errorf("git %s %s is not allowed: %w", sub, a, err)
	}
	return nil
}

// colonRule is why a revision starting with ":" is refused: ":/text"
// searches the commits of every ref (among them the stash of a
// `git stash -u`, which holds the user's untracked files, a .env), and ":path" or ":N:path" read the
// index, which holds what the user staged but never committed.
const colonRule = "\":/text\" searches every branch, the stash and the reflog, and \":path\" reads the index (the user's staged work), not a commit of this PR; " +
	"read a file of a commit as HEAD:path or HEAD~1:path, the work tree with read_file, the staged changes with git diff --cached"

// gitArgs rebuilds a read-only git command for the repository: the options
// that passed, gh-ocdx's own, the revisions as full object names of the
// PR's commits (see revision), then "--" and the paths, each checked
// against the work tree (so git never compares a file outside the
// repository, as its implicit --no-index would).
func (w *workspace) gitArgs(ctx context.Context, g *gitRead) ([]string, error) {
	var revs, paths []string
	for _, a := range g.operands {
		if g.sub != "status" {
			rev, ok, err := w.revision(ctx, g.sub, a)
			if err != nil {
				return nil, err
			}
			if ok {
				revs = append(revs, rev)
				continue
			}
		}
		if strings.HasPrefix(a, ":") {
			return nil, fmt.Errorf("git %s %s is not allowed: it is not a revision, and pathspec magic (:(…), :!, :/) is not accepted; give plain paths relative to the repository root", g.sub, a)
		}
		paths = append(paths, a)
	}
	paths = append(paths, g.paths...)
	for i, p := range paths {
		c, err := w.files.Check(p)
		if err != nil {
			return nil, fmt.Errorf("git %s %s is not allowed: %w", g.sub, p, err)
		}
		paths[i] = c
	}
	// Replace refs would show another commit's content under a PR commit's
	// name, and notes are refs of their own: neither is read.
	args := slices.Concat([]string{"--no-replace-objects", g.sub}, gitFixed[g.sub], g.opts, revs, []string{"--"}, paths)
	return args, nil
}

// revision checks operand a of git sub as a revision and rebuilds it: each
// commit it names must be one of the PR's (an ancestor of HEAD, which holds
// the agent's own commits, or of the PR's base) and is given to git as its
// full object name, so that git resolves nothing itself. Names are not the
// rule: another branch, a tag, the stash, a reflog entry, FETCH_HEAD are
// all fine where they name such a commit, and refused where they do not.
// The forms are REV, REV:path, A..B, A...B, ^REV and REV^!, REV^@,
// REV^-N. ok is false when a names no revision (git takes it as a path).
func (w *workspace) revision(ctx context.Context, sub, a string) (rev string, ok bool, err error) {
	switch {
	case strings.HasPrefix(a, ":(") || strings.HasPrefix(a, ":!"):
		return "", false, nil // pathspec magic, refused as a path
	case strings.HasPrefix(a, ":"):
		return "", false, fmt.Errorf("git %s %s is not allowed: %s", sub, a, colonRule)
	}
	var ends []string               // the revisions a names
	var build func([]string) string // a again, from the ends' object names
	if r, p, found := cutOutsideBraces(a, ":"); found {
		if p != "" {
			c, err := repofs.Clean(p)
			if err != nil {
				return "", false, fmt.Errorf("git %s %s is not allowed: %w", sub, a, err)
			}
			if p = c; c == "." {
				p = "" // "REV:" is the root tree, "REV:." is not
			}
		}
		ends, build = []string{r}, func(o []string) string { return o[0] + ":" + p }
	} else if l, r, op := cutRange(a); op != "" {
		ends, build = []string{l, r}, func(o []string) string { return o[0] + op + o[1] }
		for i, e := range ends {
			if e == "" {
				ends[i] = "HEAD" // as git reads "A.." and "..B"
			}
		}
	} else if r, found := strings.CutPrefix(a, "^"); found {
		ends, build = []string{r}, func(o []string) string { return "^" + o[0] }
	} else if r, suffix := cutParentSuffix(a); suffix != "" {
		ends, build = []string{r}, func(o []string) string { return o[0] + suffix }
	} else {
		ends, build = []string{a}, func(o []string) string { return o[0] }
	}
	oids := make([]string, len(ends))
	for i, e := range ends {
		oid, err := w.repo.Run(ctx, "--no-replace-objects", "rev-parse", "--verify", "--quiet", "--end-of-options", e+"^{commit}")
		if err != nil || oid == "" {
			return "", false, w.notACommit(ctx, sub, a, e)
		}
		if !w.ofThePR(ctx, oid) {
			base := ""
			if w.base != "" {
				base = " (" + text.ShortOID(w.base) + ")"
			}
			return "", false, fmt.Errorf("git %s %s is not allowed: %s is not a commit of this PR. The agent's git reads only the PR's commits, the ancestors of HEAD or of the PR's base%s, "+
				"never another branch, tag, the stash or the reflog; name one as HEAD, HEAD~2, HEAD~1:path, or by a commit id from git log", sub, a, e, base)
		}
		oids[i] = oid
	}
	return build(oids), true, nil
}

// notACommit explains why a, or its part e, resolved to no commit: nil when
// a is no revision at all (a path, then), git's error for a revision it
// cannot resolve (a branch without upstream), else a refusal: a blob, tree
// or tag object by its id is read through its commit (HEAD:path).
func (w *workspace) notACommit(ctx context.Context, sub, a, e string) error {
	out, err := w.repo.Run(ctx, "--no-replace-objects", "rev-parse", "--revs-only", "--end-of-options", a)
	switch {
	case err != nil:
		return fmt.Errorf("git %s %s: %v", sub, a, err)
	case out == "" && e == a:
		return nil
	case out == "" && w.exists(a): // a path with ":" or ".." in its name
		return nil
	case out == "":
		return fmt.Errorf("git %s %s: %s is not a revision of this repository; name a commit of this PR as HEAD, HEAD~2 or by a commit id from git log", sub, a, e)
	}
	return fmt.Errorf("git %s %s is not allowed: %s is not a commit; the agent's git reads commits of this PR, and their files as COMMIT:path (HEAD:path, HEAD~1:dir/file)", sub, a, e)
}

// exists says whether the work tree has path p (p passed gitPath).
func (w *workspace) exists(p string) bool {
	_, err := os.Lstat(filepath.Join(w.files.Dir(), filepath.FromSlash(p)))
	return err == nil
}

// ofThePR says whether commit oid is an ancestor of HEAD or of the PR's
// base. HEAD only moves forward by the agent's commits, so a commit found
// to be one stays one.
func (w *workspace) ofThePR(ctx context.Context, oid string) bool {
	if w.ancestors[oid] {
		return true
	}
	for _, tip := range []string{"HEAD", w.base} {
		if tip == "" {
			continue
		}
		// Exit 1 is "no"; any other failure (a base not fetched) is "no" too.
		if _, err := w.repo.Run(ctx, "--no-replace-objects", "merge-base", "--is-ancestor", "--end-of-options", oid, tip); err == nil {
			if w.ancestors == nil {
				w.ancestors = map[string]bool{}
			}
			w.ancestors[oid] = true
			return true
		}
	}
	return false
}

// cutOutsideBraces cuts s around the first sep that is not inside a
// "{…}" (HEAD^{/fix: x} is one revision).
func cutOutsideBraces(s, sep string) (before, after string, found bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '{':
			depth++
		case s[i] == '}' && depth > 0:
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], sep):
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// cutRange splits A...B or A..B; op is "" for neither.
func cutRange(s string) (l, r, op string) {
	for _, op := range []string{"...", ".."} {
		if l, r, found := cutOutsideBraces(s, op); found {
			return l, r, op
		}
	}
	return s, "", ""
}

// cutParentSuffix splits REV^!, REV^@ and REV^-N (the parents of REV, or
// all but the Nth): they name only REV and its ancestors.
func cutParentSuffix(s string) (rev, suffix string) {
	for _, sfx := range []string{"^!", "^@"} {
		if r, found := strings.CutSuffix(s, sfx); found && r != "" {
			return r, sfx
		}
	}
	if i := strings.LastIndex(s, "^-"); i > 0 && strings.Trim(s[i+2:], "0123456789") == "" {
		return s[:i], s[i:]
	}
	return s, ""
}
