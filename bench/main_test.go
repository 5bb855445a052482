package bench

import (
	"os"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// TestMain runs TestCountFigures' scenarios four at a time: each waits on
// the binary, git and the fakes more than it computes.
func TestMain(m *testing.M) {
	testkit.AllowParallel(4)
	os.Exit(m.Run())
}
