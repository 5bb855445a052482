//go:build unix

package config

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO swapped in for the file between the check and the open is
// refused once opened, without waiting for a writer.
func TestReadOpenedRefusesAFIFOWithoutBlocking(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "config.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if _, err := readOpened(fifo); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("readOpened = %v, want the FIFO refused", err)
	}
}
