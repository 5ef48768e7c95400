package pipeline

// SetReplayProbe makes every replay worker call f after each record it
// collected (f must be safe for concurrent use), until restore is called.
func SetReplayProbe(f func()) (restore func()) {
	old := afterRecord
	afterRecord = f
	return func() { afterRecord = old }
}
