package infer

import "slices"

func sortFloats(v []float64) { slices.Sort(v) }
