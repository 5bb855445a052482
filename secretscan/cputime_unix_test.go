//go:build unix

package secretscan

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process and the children it waited for
// (git) have used: on a shared machine, wall time is mostly the wait for
// a core.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	var t time.Duration
	for _, tv := range []syscall.Timeval{self.Utime, self.Stime, children.Utime, children.Stime} {
		t += time.Duration(tv.Nano())
	}
	return t
}
