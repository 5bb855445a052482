//go:build race

package testkit

// raceScale stretches the terminal tests' deadlines: the race detector
// makes the program several times slower, most on a loaded two-core runner.
const raceScale = 4
