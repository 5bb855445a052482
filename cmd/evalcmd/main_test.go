package evalcmd

import (
	"os"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestMain(m *testing.M) {
	os.Exit(testkit.RunInMemory(m))
}
