package git

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
)

// The PR's history as the secret scan reads it (docs/architecture.md, The
// secret scan): each of its own commits' patches and
// every commit's raw object, asked for by the IDs the patches' stream
// named: two git processes, not a third to list the commits again. Its commits, messages, names and contents are
// the PR author's: git is given only full IDs, reads no replace ref and
// no attribute but the work tree's (which --text overrides), and runs no
// program (no external diff, textconv, signature check or pager).

// OpenHistory streams the patches of the commits head holds and base does
// not, newest first, each after a line "commit <full ID> <parents' full
// IDs>": every added line of every commit, as text whatever an attribute
// says, without context lines; a merge (two parents or more) has no
// patch. ok is false when base or head is no full ID.
// Close waits for git and reports a stream that was not whole: ErrNotHere
// when base or head is not a commit here.
func (r *Repo) OpenHistory(ctx context.Context, base, head string) (patches io.ReadCloser, ok bool) {
	if !isSHA(base) || !isSHA(head) {
		return nil, false
	}
	// A line of the format starts every commit; the message is not in
	// this stream (OpenCommits reads it raw), so no line of it can be
	// taken for a diff line or a commit line.
	args := slices.Concat([]string{"-c", "log.showSignature=false", "-c", "log.showRoot=true"}, pinnedConfig, []string{"log"}, diffFlags,
		[]string{"--diff-merges=off", "--no-notes", "--no-mailmap", "-p", "--unified=0", "--text", "--format=commit %H %P", "--end-of-options", "^" + base, head, "--"})
	s, ok := r.stream(ctx, "log", args, nil)
	if !ok {
		return nil, false
	}
	s.missing = r.missing(ctx, base, head)
	return s, true
}

// OpenCommits streams the raw objects of the commits ids names (full IDs,
// as OpenHistory's stream names them), as git cat-file --batch writes
// them: a line "<ID> commit <size>", then size bytes (the headers, an
// empty line, the message as it was written, in no encoding but its own),
// then a line break. ok is false when an ID is no full ID.
func (r *Repo) OpenCommits(ctx context.Context, ids []string) (objects io.ReadCloser, ok bool) {
	if slices.ContainsFunc(ids, func(id string) bool { return !isSHA(id) }) {
		return nil, false
	}
	list := strings.Join(ids, "\n") + "\n"
	s, ok := r.stream(ctx, "cat-file", []string{"cat-file", "--batch"}, func(c *exec.Cmd) { c.Stdin = strings.NewReader(list) })
	if !ok {
		return nil, false
	}
	return s, true
}

// pinEnv takes from c the variables git reads besides its configuration:
// replace refs (which a verify command could write) never stand in for
// the PR's commits, nor the system's attributes for how a file is shown.
func pinEnv(c *exec.Cmd) {
	c.Env = slices.DeleteFunc(c.Env, func(kv string) bool {
		return strings.HasPrefix(kv, "GIT_DIFF_OPTS=") || strings.HasPrefix(kv, "GIT_EXTERNAL_DIFF=")
	})
	c.Env = append(c.Env, "GIT_NO_REPLACE_OBJECTS=1", "GIT_ATTR_NOSYSTEM=1")
}

// stream starts git with args (its command is name; set, when given,
// changes it before it starts) and returns its output.
func (r *Repo) stream(ctx context.Context, name string, args []string, set func(*exec.Cmd)) (*stream, bool) {
	c := r.Command(ctx, args...)
	pinEnv(c)
	if set != nil {
		set(c)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, false
	}
	var errOut bytes.Buffer
	c.Stderr = &errOut
	if err := c.Start(); err != nil {
		return nil, false
	}
	return &stream{ReadCloser: out, c: c, errOut: &errOut, name: name}, true
}

var errNotWhole = errors.New("not read to the end")
