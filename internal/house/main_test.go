package house

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs the tests from the module's root: what they read is the
// whole module (its files, docs and packages), named from there.
func TestMain(m *testing.M) {
	if err := os.Chdir("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := os.Stat("go.mod"); err != nil {
		fmt.Fprintln(os.Stderr, "the module's root is not two directories up:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
