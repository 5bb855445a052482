package testkit

import (
	"bufio"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// catFile is one `git cat-file --batch` on a bare remote: the fake reads
// the files of a commit through it, one git process a remote rather than
// one a file (a review reads .ocdx.json, REVIEW.md and the learnings at
// its base, a check reads files at its head).
type catFile struct {
	mu     sync.Mutex
	in     io.WriteCloser
	out    *bufio.Reader
	broken bool // a failed read: the fake runs git show instead
}

// catFileOf is the remote's cat-file, started at its first use and ended
// with the test; nil when it cannot start.
func (g *GitHub) catFileOf(remote string) *catFile {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.cats[remote]; ok {
		return c
	}
	if g.cats == nil {
		g.cats = map[string]*catFile{}
	}
	var c *catFile
	cmd := exec.Command("git", "--git-dir", remote, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	var out io.ReadCloser
	if err == nil {
		out, err = cmd.StdoutPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	if err == nil {
		c = &catFile{in: in, out: bufio.NewReader(out)}
		g.t.Cleanup(func() {
			in.Close()
			cmd.Wait()
		})
	}
	g.cats[remote] = c
	return c
}

// blob reads object (rev:path) as `git show rev:path` prints a file: found
// is false for a path or revision git does not have; answered is false
// when cat-file cannot say what git show would (not a file, a name the
// batch's lines cannot carry, a broken pipe), for the caller to run it.
func (c *catFile) blob(object string) (data []byte, found, answered bool) {
	if c == nil || strings.ContainsAny(object, "\n\r\x00") {
		return nil, false, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken {
		return nil, false, false
	}
	fail := func() ([]byte, bool, bool) {
		c.broken = true
		return nil, false, false
	}
	if _, err := io.WriteString(c.in, object+"\n"); err != nil {
		return fail()
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return fail()
	}
	switch {
	case header == object+" missing\n":
		return nil, false, true
	case header == object+" ambiguous\n":
		return nil, false, false
	}
	// <id> <type> <size>, then the contents and a newline.
	f := strings.Fields(header)
	if len(f) != 3 {
		return fail()
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return fail()
	}
	data = make([]byte, size+1)
	if _, err := io.ReadFull(c.out, data); err != nil || data[size] != '\n' {
		return fail()
	}
	if f[1] != "blob" {
		return nil, false, false // git show lists a tree, shows a commit
	}
	return data[:size], true, true
}
