//go:build !race

package testkit

// raceScale stretches the terminal tests' deadlines under the race
// detector (race_on.go); without it they are as written.
const raceScale = 1
