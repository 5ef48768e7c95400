package combine

// resetPairwiseCache empties the pairwise cache so a test or benchmark
// measures a fresh build.
func resetPairwiseCache() {
	c := &pairwiseCache
	c.Lock()
	defer c.Unlock()
	c.rows, c.order, c.cells = nil, nil, 0
}
