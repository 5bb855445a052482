package git_test

import (
	"os"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestMain(m *testing.M) {
	testkit.UseGitIdentity()
	os.Exit(testkit.RunInMemory(m))
}
