//go:build race

package combine

// raceEnabled turns off CPU-time checks, which the race detector slows
// by an order of magnitude.
const raceEnabled = true
