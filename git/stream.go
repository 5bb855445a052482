package git

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// RunIO runs git with args in the work tree, stdin as its input (nil for
// none), and writes its output to stdout as it comes: for output Run would
// hold whole and trim, such as file contents from cat-file --batch.
func (r *Repo) RunIO(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	var errOut bytes.Buffer
	c := exec.CommandContext(ctx, "git", args...)
	c.Dir, c.Stdin, c.Stdout, c.Stderr = r.Dir, stdin, stdout, &errOut
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
