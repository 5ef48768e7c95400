//go:build race

package combine

// raceEnabled turns off wall-clock checks, which the race detector slows
// by an order of magnitude.
const raceEnabled = true
