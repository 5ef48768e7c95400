package metrics

// Test-only conveniences: production code prepares a Tally or a Sample once
// per case and adds it to every node's accumulator.

// AddCase records one case of the dimension (see Tally.Case).
func (d *DimAcc) AddCase(expected, recognized []Unit) {
	var t Tally
	t.Case(expected, recognized)
	d.Add(&t)
}

// Add records the latency in milliseconds of one call whose input was
// text; the bucket comes from InputLength(text).
func (l *LatencyAcc) Add(text string, ms float64) {
	l.AddLength(InputLength(text), ms)
}

// AddLength is Add for an input of length n.
func (l *LatencyAcc) AddLength(n int, ms float64) {
	l.AddSample(NewSample(n, ms))
}
