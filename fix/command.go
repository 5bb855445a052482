package fix

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

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

// parseCommand applies AllowCommand's rules to argv.
func parseCommand(argv []string, verify [][]string) (request, error) {
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
// program, and no look inside a submodule.
var gitFixed = map[string][]string{
	"diff":   {"--no-ext-diff", "--no-textconv", "--ignore-submodules=all"},
	"show":   {"--no-ext-diff", "--no-textconv"},
	"log":    {"--no-ext-diff", "--no-textconv"},
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
			// `git stash -u` keeps the user's untracked files (a .env) in
			// a commit of the stash: the agent reads tracked files only.
			if strings.Contains(strings.ToLower(a), "stash") {
				return nil, fmt.Errorf("git %s %s is not allowed: the stash holds the user's own work, untracked files included; read the branch's commits (HEAD, HEAD~1, main…) instead", sub, a)
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

// gitArgs rebuilds a read-only git command for the repository: the options
// that passed, gh-ocdx's own, the revisions, then "--" and the paths, each
// checked against the work tree (so git never compares a file outside the
// repository, as its implicit --no-index would).
func (w *workspace) gitArgs(ctx context.Context, g *gitRead) ([]string, error) {
	var revs, paths []string
	for _, a := range g.operands {
		if g.sub != "status" {
			out, err := w.repo.Run(ctx, "rev-parse", "--revs-only", "--end-of-options", a)
			if err != nil {
				return nil, fmt.Errorf("git %s %s: %v", g.sub, a, err)
			}
			if out != "" {
				revs = append(revs, a)
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
	args := slices.Concat([]string{g.sub}, gitFixed[g.sub], g.opts, revs, []string{"--"}, paths)
	return args, nil
}
