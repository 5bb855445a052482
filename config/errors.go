package config

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// Error is an unusable configuration file: missing, unreadable, or invalid.
// Its message names the file, every problem found, what to do, and shows a
// valid example, so that a user can fix everything in one go.
type Error struct {
	Path     string    // absolute path of the file at fault
	Problems []Problem // what is wrong, in file order; credentials last
	// Err is the cause when the file could not be read at all;
	// errors.Is(err, fs.ErrNotExist) tells a missing file.
	Err  error
	Repo bool // the file is a repository's .ocdx.json, not the configuration
	// Branch: the .ocdx.json was read from a branch on GitHub (Path names
	// the branch and commit), so only a commit to that branch changes it.
	Branch bool
}

// Problem is one thing wrong in a configuration file.
type Problem struct {
	Line, Column int    // 1-based position in the file; 0 when not tied to one
	Key          string // the key at fault, e.g. "reviewerModels[2]"; "" for the file as a whole
	Env          string // the environment variable at fault (a missing credential)
	Msg          string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d, column %d: ", p.Line, p.Column)
	}
	if p.Key != "" {
		b.WriteString(p.Key + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	var b strings.Builder
	cause := e.Err
	var pathErr *fs.PathError
	if errors.As(cause, &pathErr) {
		cause = pathErr.Err // the path is already in the message
	}
	switch {
	case errors.Is(e.Err, fs.ErrNotExist):
		fmt.Fprintf(&b, "no configuration file at %s\n\n", e.Path)
		b.WriteString("Create it with 'gh ocdx config init', then edit the models it names. A configuration looks like this:\n\n")
	case e.Err != nil && e.Branch:
		fmt.Fprintf(&b, "cannot read %s: %v\n\nMake it a small JSON text file on that branch. It looks like this:\n\n", e.Path, cause)
	case e.Err != nil && e.Repo:
		fmt.Fprintf(&b, "cannot read %s: %v\n\nMake it a readable file. It looks like this:\n\n", e.Path, cause)
	case e.Err != nil:
		fmt.Fprintf(&b, "cannot read %s: %v\n\n", e.Path, cause)
		b.WriteString("Make it a readable file (or point OCDX_CONFIG at one). A configuration looks like this:\n\n")
	default:
		what := "configuration"
		if e.Repo {
			what = "repository configuration"
		}
		fmt.Fprintf(&b, "invalid %s in %s:\n", what, e.Path)
		for _, p := range e.Problems {
			fmt.Fprintf(&b, "  - %s\n", p)
		}
		b.WriteString("\n" + e.hint() + "\n\n")
	}
	if e.Repo {
		b.WriteString(RepoExample)
	} else {
		b.WriteString(Example)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (e *Error) hint() string {
	var inFile, inEnv bool
	for _, p := range e.Problems {
		if p.Env != "" {
			inEnv = true
		} else {
			inFile = true
		}
	}
	check := "then check it with 'gh ocdx config validate'"
	switch {
	case e.Branch:
		return "A repository's .ocdx.json may set only " + policyKeyList + ". For a pull request gh-ocdx reads it from the base branch, so a pull request cannot change it for its own run: fix " + e.Path + " on that branch (check it with 'gh ocdx config validate' in a checkout of it), then re-run. It looks like this:"
	case e.Repo:
		return "A repository's .ocdx.json may set only " + policyKeyList + "; fix " + e.Path + ", " + check + ". It looks like this:"
	case inFile && inEnv:
		return "Fix " + e.Path + " and export the missing variables in your shell, " + check + ". A valid configuration looks like this:"
	case inEnv:
		return "Export the missing variables in your shell (or use models of a provider whose credential you have), " + check + ". The configuration looks like this:"
	default:
		return "Fix " + e.Path + ", " + check + ". A valid configuration looks like this:"
	}
}

// policyKeyList names the keys of a repository's .ocdx.json for messages.
const policyKeyList = `"verify" (the commands run before a fix is pushed), "instructions", "paths", "ignore" and "ignoreDefaults"`

// position turns a byte offset into a 1-based line and column (in characters).
func position(data []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(data))
	line, col = 1, 1
	for _, r := range string(data[:offset]) {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// suggest returns the known key closest to an unknown one when it looks like
// a typo of it (or differs only in case), else "".
func suggest(key string, known []string) string {
	best, bestDist := "", 1<<30
	for _, k := range known {
		if d := text.Distance(strings.ToLower(key), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if bestDist <= 3 && bestDist*2 < len(best) {
		return best
	}
	return ""
}

// Text is the problem without its place (a mark under its line shows it).
func (p Problem) Text() string {
	p.Line, p.Column = 0, 0
	return p.String()
}
