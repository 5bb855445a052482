package testkit

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that several goroutines may write at once, as
// they write a process's stderr: a run's roles log side by side.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
