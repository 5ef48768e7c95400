//go:build !race

package combine

const raceEnabled = false
