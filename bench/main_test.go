package bench

import (
	"os"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// TestMain runs TestCountFigures' scenarios four at a time: each waits on
// the binary, git and the fakes more than it computes. Their files go to
// the memory file system (testkit.RunInMemory): the counts do not depend
// on the disk. TestBench's timings keep the disk users have.
func TestMain(m *testing.M) {
	testkit.AllowParallel(4)
	if os.Getenv("OCDX_BENCH") != "" {
		os.Exit(m.Run())
	}
	os.Exit(testkit.RunInMemory(m))
}
