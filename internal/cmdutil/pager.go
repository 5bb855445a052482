package cmdutil

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/kballard/go-shellquote"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// StartPager sends what the verb writes on stdout through the person's
// pager while it runs, as gh does for long output: GH_PAGER, else PAGER;
// none, "cat", or stdout not a terminal: no pager. less and lv get gh's
// defaults (LESS=FRX: one screen is printed and left, colours pass) unless
// they are set. stop waits for the pager to end. A pager that cannot start
// is said once, and the output is written as it would be without one.
func (d *Deps) StartPager() (stop func()) {
	noop := func() {}
	command := d.Getenv("GH_PAGER")
	if command == "" {
		command = d.Getenv("PAGER")
	}
	if command == "" || command == "cat" || !d.IO.StdoutTTY || d.IO.RawOut == nil {
		return noop
	}
	args, err := shellquote.Split(command)
	if err != nil || len(args) == 0 {
		fmt.Fprintf(d.IO.ErrOut, "! the pager %q cannot be read as a command (%v): output not paged\n", command, err)
		return noop
	}
	r, w, err := os.Pipe()
	if err != nil {
		return noop
	}
	pager := exec.Command(args[0], args[1:]...)
	pager.Env = os.Environ()
	for k, v := range map[string]string{"LESS": "FRX", "LV": "-c"} {
		if d.Getenv(k) == "" {
			pager.Env = append(pager.Env, k+"="+v)
		}
	}
	pager.Stdin, pager.Stdout, pager.Stderr = r, d.IO.RawOut, d.IO.TerminalErr()
	if err := pager.Start(); err != nil {
		r.Close()
		w.Close()
		fmt.Fprintf(d.IO.ErrOut, "! the pager %q did not start (%v): output not paged\n", command, err)
		return noop
	}
	r.Close()
	ios := d.IO
	out, RawOut, width := ios.Out, ios.RawOut, ios.TerminalWidth()
	ios.Out, ios.RawOut, ios.width = text.Writer{W: w}, w, width
	return func() {
		w.Close()
		_ = pager.Wait()
		ios.Out, ios.RawOut, ios.width = out, RawOut, 0
	}
}

// PagerQuit: the person left the pager before the output ended, which is
// no failure (gh's ErrClosedPagerPipe).
func PagerQuit(err error) bool { return errors.Is(err, syscall.EPIPE) }
