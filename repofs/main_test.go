package repofs

import (
	"os"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	defer testkit.TempInMemory()()
	return m.Run()
}
