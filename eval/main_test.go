package eval

import (
	"os"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// TestMain puts the tests' repositories on the memory file system: git's
// writes wait on no disk (testkit.RunInMemory).
func TestMain(m *testing.M) {
	os.Exit(testkit.RunInMemory(m))
}
