package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// TempInMemory points the process's temporary directory (t.TempDir, and
// TMPDIR for the commands it starts) at a new directory on the memory file
// system /dev/shm, unless TMPDIR was chosen or there is no /dev/shm, and
// returns what removes it. Tests that make repositories, push and write the
// state file wait on the disk's fsyncs otherwise (docs/architecture.md, The
// verbs and their tests); what a test asserts does not depend on where its
// files are. Call it from TestMain, before m.Run.
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

// RunInMemory runs a package's tests with their temporary files on the
// memory file system (TempInMemory) and returns m.Run's code:
// func TestMain(m *testing.M) { os.Exit(testkit.RunInMemory(m)) }.
func RunInMemory(m *testing.M) int {
	defer TempInMemory()()
	return m.Run()
}
