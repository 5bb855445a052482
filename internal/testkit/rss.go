//go:build unix

package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RunPeakRSS runs c and returns the error of its Wait and its own peak
// resident memory, read from VmHWM in /proc/PID/status every 2 ms while it
// runs (the high-water mark only grows, so the last read is its peak, but
// for what the last 2 ms added). Not wait4's Maxrss: Go starts a child
// with vfork, and at exec Linux folds the parent's high-water RSS into the
// child's, so a child of a large test process would report the test's.
// Where there is no /proc (macOS), it is wait4's Maxrss after all.
func RunPeakRSS(c *exec.Cmd) (peak int64, err error) {
	if err := c.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", c.Process.Pid)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if peak == 0 && c.ProcessState != nil {
				if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
					peak = int64(ru.Maxrss) // bytes on macOS
					if runtime.GOOS != "darwin" {
						peak <<= 10 // KiB elsewhere
					}
				}
			}
			return peak, err
		case <-tick.C:
			b, _ := os.ReadFile(status)
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
					if kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil {
						peak = max(peak, kib*1024)
					}
				}
			}
		}
	}
}
