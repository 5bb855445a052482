package git_test

import (
	"os"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestMain(m *testing.M) {
	testkit.UseGitIdentity()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	defer testkit.TempInMemory()()
	return m.Run()
}
