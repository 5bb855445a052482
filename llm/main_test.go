package llm

import (
	"flag"
	"os"
	"testing"
)

// TestMain gives the tests that wait on timers (a time-out, a Retry-After,
// a paced stream) room to wait side by side: each marks itself parallel,
// and up to 8 run at once rather than as many as the machine has cores
// (they sleep; they do not compute). A -test.parallel given is kept.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", "8")
	}
	os.Exit(m.Run())
}
