package testkit

import (
	"os"
	"path/filepath"
)

// TempInMemory points the process's temporary directory (t.TempDir, and
// TMPDIR for the commands it starts) at a new directory on the memory
// file system /dev/shm, unless TMPDIR was chosen or there is no /dev/shm,
// and returns what removes it. The e2e, git and fix tests create repositories,
// commit, push and write the bbolt state file: on a disk each of those
// waits for an fsync, which took half of the e2e package's wall time on a
// loaded 2-core machine (BENCHMARKS.md, The test suite). What a test
// asserts does not depend on where its files are. Call it from TestMain,
// before m.Run.
func TempInMemory() (cleanup func()) {
	if os.Getenv("TMPDIR") != "" {
		return func() {}
	}
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		return func() {}
	}
	dir, err := os.MkdirTemp("/dev/shm", "gh-ocdx-tests-")
	if err != nil {
		return func() {}
	}
	dir, _ = filepath.EvalSymlinks(dir)
	os.Setenv("TMPDIR", dir)
	return func() {
		os.Unsetenv("TMPDIR")
		os.RemoveAll(dir)
	}
}
