package testkit

// T is what the fakes and fixtures need of a test: testing.TB satisfies
// it, and so does a program that runs gh-ocdx against the fakes outside a
// test (the demo, docs/architecture.md, Packages).
type T interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	TempDir() string
	Cleanup(func())
}
