package fix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/repofs"
	"github.com/ocdx/gh-ocdx/verify"
)

// commandTimeout bounds one run_command call.
const commandTimeout = 10 * time.Minute

// readOnlyGit are the git subcommands run_command allows.
var readOnlyGit = []string{"status", "diff", "log", "show"}

// networkTools are refused by name, with a reason the model can act on.
var networkTools = []string{"curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "rsync", "ftp", "telnet", "http", "https", "socat", "aria2c", "gh"}

func describeVerify(verify [][]string) string {
	if len(verify) == 0 {
		return "none configured"
	}
	var s []string
	for _, v := range verify {
		s = append(s, strings.Join(v, " "))
	}
	return strings.Join(s, "; ")
}

// workspace is what the write tools act on and report to.
type workspace struct {
	files *repofs.Repo
	reads *trackedFiles // what read_file, list_files and search see, and what write_file and edit_file may change
	repo  *git.Repo
	// base is the PR's base commit (the merge base, for a local review):
	// read-only git reads its ancestors and HEAD's, nothing else.
	base      string
	ancestors map[string]bool // commits found to be the PR's
	verify    [][]string
	progress  io.Writer
	// touched and committed record the agent's effects (the WIP).
	touched   func(path string)
	committed func(sha, message string)
}

// tools are the pr-fix agent's tools (docs/architecture.md, The agents)
// except note, which the
// caller adds with its working note.
func (w *workspace) tools() []llm.Tool {
	tools := change.RepoTools(w.reads)
	return append(tools,
		llm.Tool{
			Name:        "write_file",
			Description: "Create or replace a file of the repository with content.",
			Schema:      llm.ObjectSchema(`{"path":{"type":"string","description":"path relative to the repository root"},"content":{"type":"string"}}`, "path", "content"),
			Run: func(_ context.Context, raw json.RawMessage) (string, error) {
				var a struct{ Path, Content string }
				if err := llm.DecodeArgs(raw, &a); err != nil {
					return "", err
				}
				if err := w.reads.MayChange(a.Path); err != nil {
					return "", err
				}
				if err := w.files.WriteFile(a.Path, a.Content); err != nil {
					return "", err
				}
				w.touched(a.Path)
				return fmt.Sprintf("wrote %s (%d bytes)", a.Path, len(a.Content)), nil
			},
		},
		llm.Tool{
			Name:        "edit_file",
			Description: "Replace old_string with new_string in a file; old_string must occur exactly once.",
			Schema:      llm.ObjectSchema(`{"path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"}}`, "path", "old_string", "new_string"),
			Run: func(_ context.Context, raw json.RawMessage) (string, error) {
				var a struct {
					Path string `json:"path"`
					Old  string `json:"old_string"`
					New  string `json:"new_string"`
				}
				if err := llm.DecodeArgs(raw, &a); err != nil {
					return "", err
				}
				if err := w.reads.MayChange(a.Path); err != nil {
					return "", err
				}
				if err := w.files.Edit(a.Path, a.Old, a.New); err != nil {
					return "", err
				}
				w.touched(a.Path)
				return "edited " + a.Path, nil
			},
		},
		llm.Tool{
			Name: "run_command",
			Description: "Run a command in the repository, without a shell: argv is the program and its arguments. Allowed: the verify commands (" +
				describeVerify(w.verify) + "); their test commands with more test names or paths inside the repository (go test also takes -run, -skip, -v, -count, -timeout, -short, -race, -cover, -bench and similar flags); " +
				"and read-only git: status, diff, log, show with revisions of this PR's commits (HEAD, HEAD~2, HEAD~1:path, A..B, a commit id from git log; not other branches, tags, the stash or the reflog), paths inside the repository and common options. Stage and commit with git_commit; gh-ocdx pushes. Output is cut to its last 8KB.",
			Schema: llm.ObjectSchema(`{"argv":{"type":"array","items":{"type":"string"},"minItems":1}}`, "argv"),
			Run:    w.runCommand,
		},
		llm.Tool{
			Name:        "git_commit",
			Description: "Stage and commit. paths limits what is staged (default: every change in the repository). Returns the new commit's sha.",
			Schema:      llm.ObjectSchema(`{"message":{"type":"string","description":"commit message: a summary line, optionally a blank line and a body"},"paths":{"type":"array","items":{"type":"string"}}}`, "message"),
			Run: func(ctx context.Context, raw json.RawMessage) (string, error) {
				var a struct {
					Message string   `json:"message"`
					Paths   []string `json:"paths"`
				}
				if err := llm.DecodeArgs(raw, &a); err != nil {
					return "", err
				}
				sha, err := w.commit(ctx, strings.TrimSpace(a.Message), a.Paths)
				if err != nil {
					return "", err
				}
				return "committed " + sha, nil
			},
		},
	)
}

// runCommand is run_command: argv run when allowRun allows it, its paths
// checked against the work tree, read-only git through the hardened
// builder, each within commandTimeout; its exit, time and output's tail.
func (w *workspace) runCommand(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Argv []string `json:"argv"`
	}
	if err := llm.DecodeArgs(raw, &a); err != nil {
		return "", err
	}
	req, err := allowRun(a.Argv, w.verify)
	if err != nil {
		return "", err
	}
	for _, p := range req.paths {
		if _, err := w.files.Check(p); err != nil {
			return "", fmt.Errorf("%s is not allowed: %w", strings.Join(a.Argv, " "), err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	var v verify.Result
	if req.git != nil {
		args, err := w.gitArgs(ctx, req.git)
		if err != nil {
			return "", err
		}
		v = verify.RunCmd(ctx, "git "+strings.Join(args, " "), w.repo.Command(ctx, args...), w.progress)
	} else {
		v = verify.RunArgv(ctx, w.repo.Dir, strings.Join(a.Argv, " "), a.Argv, w.progress)
	}
	out := fmt.Sprintf("exit %d after %s\n%s", v.ExitCode, v.Duration.Round(time.Millisecond), v.Tail)
	if !v.OK {
		return "", errors.New(out)
	}
	return out, nil
}

// commit stages paths (all changes when none) and commits them. Hooks do
// not run: a hooks directory inside the work tree is writable by the agent,
// and gh-ocdx runs the verification itself. What is staged is checked
// first: a command the agent ran may have written what its file tools
// refuse (a nested repository, a policy file).
func (w *workspace) commit(ctx context.Context, message string, paths []string) (string, error) {
	if message == "" {
		return "", errors.New("message is empty: say what the commit fixes")
	}
	add := []string{"--literal-pathspecs", "add", "--all", "--"}
	if len(paths) == 0 {
		add = append(add, ".")
	}
	for _, p := range paths {
		c, err := w.files.Check(p)
		if err != nil {
			return "", err
		}
		if err := repofs.Writable(c); err != nil {
			return "", err
		}
		add = append(add, c)
	}
	if _, err := w.repo.Run(ctx, add...); err != nil {
		return "", err
	}
	staged, refused, err := w.staged(ctx)
	if err != nil {
		return "", err
	}
	if len(refused) > 0 {
		var names, lines []string
		for p, why := range refused {
			names = append(names, p)
			lines = append(lines, "- "+why)
		}
		slices.Sort(lines)
		if _, err := w.repo.Run(ctx, append([]string{"--literal-pathspecs", "reset", "--quiet", "HEAD", "--"}, names...)...); err != nil {
			return "", fmt.Errorf("git_commit refused these paths but could not unstage them (%v): run git reset on them by hand", err)
		}
		return "", fmt.Errorf("nothing was committed: the fix agent may not commit these changes, which were unstaged (they stay in the work tree):\n%s\ncommit again with paths naming only the files you changed", strings.Join(lines, "\n"))
	}
	if staged == 0 {
		return "", errors.New("nothing to commit: no change is staged (edit files first, or check the paths)")
	}
	if _, err := w.repo.Run(ctx, "commit", "--quiet", "--no-verify", "-m", message); err != nil {
		return "", err
	}
	sha, err := w.repo.Head(ctx)
	if err != nil {
		return "", err
	}
	w.committed(sha, message)
	return sha, nil
}

// staged reads what the index changes against HEAD and returns how many
// paths it changes and, by path, why the agent may not commit a change:
// a gitlink (a nested repository or submodule, which git would enter and
// run its configuration), or a path Writable refuses. Submodules are read
// as commits only (--ignore-submodules=dirty): git does not enter them.
func (w *workspace) staged(ctx context.Context) (int, map[string]string, error) {
	out, err := w.repo.Run(ctx, "diff", "--cached", "--raw", "-z", "--no-renames", "--ignore-submodules=dirty", "HEAD")
	if err != nil {
		return 0, nil, err
	}
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	refused := map[string]string{}
	n := 0
	for i := 0; i+1 < len(fields); i += 2 {
		meta, p := strings.Fields(strings.TrimPrefix(fields[i], ":")), fields[i+1]
		n++
		if len(meta) >= 2 && (meta[0] == "160000" || meta[1] == "160000") {
			refused[p] = fmt.Sprintf("%s: a nested repository or submodule (git would run what its configuration names)", p)
		} else if err := repofs.Writable(p); err != nil {
			refused[p] = err.Error()
		}
	}
	return n, refused, nil
}
