package main

import (
	"os"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	defer testkit.TempInMemory()()
	return m.Run()
}
