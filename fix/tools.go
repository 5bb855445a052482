package fix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/llm"
	"github.com/ocdx/gh-ocdx/repofs"
	"github.com/ocdx/gh-ocdx/review"
)

// commandTimeout bounds one run_command call.
const commandTimeout = 10 * time.Minute

// readOnlyGit are the git subcommands run_command allows.
var readOnlyGit = []string{"status", "diff", "log", "show"}

// networkTools are refused by name, with a reason the model can act on.
var networkTools = []string{"curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "rsync", "ftp", "telnet", "http", "https", "socat", "aria2c", "gh"}

// AllowCommand decides whether run_command may run argv, given the verify
// commands of the configuration (split). Allowed: a verify command exactly;
// a test command of the verify list with more arguments (the verify entry
// up to its "test" word is the prefix: "go test ./..." allows
// "go test ./fix -run TestX"); git status, diff, log and show. Everything
// else is refused with the reason. Only the configuration feeds verify:
// nothing the PR says can widen this.
func AllowCommand(argv []string, verify [][]string) error {
	if len(argv) == 0 || argv[0] == "" {
		return errors.New(`argv is empty: give the program and its arguments, e.g. ["git", "status"]`)
	}
	for _, v := range verify {
		if slices.Equal(argv, v) {
			return nil
		}
		if k := slices.Index(v, "test"); k >= 1 && len(argv) > k && slices.Equal(argv[:k+1], v[:k+1]) {
			for _, a := range argv[k+1:] {
				// go test's ways of running another program or writing elsewhere.
				if f := strings.TrimLeft(a, "-"); a != f && (strings.HasPrefix(f, "exec") || strings.HasPrefix(f, "toolexec") || f == "o" || strings.HasPrefix(f, "o=")) {
					return fmt.Errorf("%s is not allowed in a test command: it would run another program or write outside the test", a)
				}
			}
			return nil
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
			for _, a := range argv[2:] {
				if strings.HasPrefix(a, "--output") || a == "--no-index" || a == "--ext-diff" || strings.HasPrefix(a, "--exec") {
					return fmt.Errorf("git %s %s is not allowed: only read-only git inside the repository", sub, a)
				}
			}
			return nil
		case sub == "push":
			return errors.New("git push is not allowed: gh-ocdx pushes your commits itself once verification passes, and never with force; commit with git_commit and finish with the envelope")
		case sub == "add" || sub == "commit":
			return fmt.Errorf("git %s is not allowed through run_command: use the git_commit tool, which stages and commits", sub)
		default:
			return fmt.Errorf("git %s is not allowed: it could discard work, move the branch or reach the network; the git you have is status, diff, log and show (run_command) and git_commit", sub)
		}
	}
	if slices.Contains(networkTools, name) {
		return fmt.Errorf("%s is not allowed: the fix agent has no network access", name)
	}
	return fmt.Errorf("%s is not allowed: run_command runs only the verify commands (%s), their test commands with more arguments, and git status, diff, log and show", argv[0], describeVerify(verify))
}

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
	files    *repofs.Repo
	reads    review.Files // what read_file, list_files and search see
	repo     *git.Repo
	verify   [][]string
	progress io.Writer
	// touched and committed record the agent's effects (the WIP).
	touched   func(path string)
	committed func(sha, message string)
}

// tools are the pr-fix agent's tools (DESIGN.md §5) except note, which the
// caller adds with its working note.
func (w *workspace) tools() []llm.Tool {
	tools := review.RepoTools(w.reads)
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
				describeVerify(w.verify) + "), their test commands with more arguments, and git status, diff, log, show. Output is cut to its last 8KB.",
			Schema: llm.ObjectSchema(`{"argv":{"type":"array","items":{"type":"string"},"minItems":1}}`, "argv"),
			Run: func(ctx context.Context, raw json.RawMessage) (string, error) {
				var a struct {
					Argv []string `json:"argv"`
				}
				if err := llm.DecodeArgs(raw, &a); err != nil {
					return "", err
				}
				if err := AllowCommand(a.Argv, w.verify); err != nil {
					return "", err
				}
				ctx, cancel := context.WithTimeout(ctx, commandTimeout)
				defer cancel()
				v := runArgv(ctx, w.repo.Dir, strings.Join(a.Argv, " "), a.Argv, w.progress)
				out := fmt.Sprintf("exit %d after %s\n%s", v.ExitCode, v.Duration.Round(time.Millisecond), v.Tail)
				if !v.OK {
					return "", errors.New(out)
				}
				return out, nil
			},
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

// commit stages paths (all changes when none) and commits them. Hooks do
// not run: a hooks directory inside the work tree is writable by the agent,
// and gh-ocdx runs the verification itself.
func (w *workspace) commit(ctx context.Context, message string, paths []string) (string, error) {
	if message == "" {
		return "", errors.New("message is empty: say what the commit fixes")
	}
	add := []string{"add", "--all", "--"}
	if len(paths) == 0 {
		add = append(add, ".")
	}
	for _, p := range paths {
		c, err := repofs.Clean(p)
		if err != nil {
			return "", err
		}
		if _, err := w.files.ReadFile(c, 1, 1); err != nil && errors.Is(err, repofs.ErrOutside) {
			return "", err
		}
		add = append(add, c)
	}
	if _, err := w.repo.Run(ctx, add...); err != nil {
		return "", err
	}
	staged, err := w.repo.Run(ctx, "diff", "--cached", "--name-only")
	if err != nil {
		return "", err
	}
	if staged == "" {
		return "", errors.New("nothing to commit: no change is staged (edit files first, or check the paths)")
	}
	if _, err := w.repo.Run(ctx, "-c", "core.hooksPath="+os.DevNull, "commit", "--quiet", "--no-verify", "-m", message); err != nil {
		return "", err
	}
	sha, err := w.repo.Head(ctx)
	if err != nil {
		return "", err
	}
	w.committed(sha, message)
	return sha, nil
}
