//go:build unix

package state

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid runs on this machine. EPERM means it
// exists under another user.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
