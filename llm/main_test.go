package llm

import (
	"os"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// TestMain gives the tests that wait on timers (a time-out, a Retry-After,
// a paced stream) room to wait side by side: each marks itself parallel,
// and up to 8 run at once (they sleep; they do not compute).
func TestMain(m *testing.M) {
	testkit.AllowParallel(8)
	os.Exit(m.Run())
}
