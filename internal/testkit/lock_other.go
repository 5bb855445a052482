//go:build !unix

package testkit

// lockFile is no lock where the tests do not run (they build, for Windows).
func lockFile(string) (unlock func(), err error) { return func() {}, nil }
