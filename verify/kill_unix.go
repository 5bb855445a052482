//go:build unix

package verify

import (
	"os/exec"
	"syscall"
)

// killGroup makes the command lead its own process group and, on
// cancellation, signals the whole group: a verify command's children (a
// compiler, a test binary) stop with it.
func killGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGTERM) }
}
