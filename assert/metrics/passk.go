package metrics

import (
	"math"
	"math/big"
)

// Repeated runs (--repeat N): pass@k and pass^k over tasks that each ran
// n times and passed c of them.
//
// pass@k is the unbiased estimator of Chen et al. 2021, "Evaluating Large
// Language Models Trained on Code" (§2.1): per task 1 − C(n−c, k)/C(n, k),
// the chance that at least one of k runs drawn without replacement from
// the n passes, averaged over tasks. pass^k is τ-bench's (Yao et al. 2024,
// "τ-bench: A Benchmark for Tool-Agent-User Interaction in Real-World
// Domains"; its repository averages comb(c, k)/comb(n, k) over tasks): per
// task C(c, k)/C(n, k), the chance that all k pass, averaged over tasks.
// Both need k ≤ n.

// PassAt is one task's pass@k estimate, computed as the paper's numpy
// code does (1 − Π_{i=n−c+1}^{n} (1 − k/i)) so that large n does not
// overflow; NaN unless 1 ≤ k ≤ n and 0 ≤ c ≤ n.
func PassAt(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return math.NaN()
	}
	if n-c < k {
		return 1
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p
}

// PassAll is one task's pass^k estimate, C(c, k)/C(n, k) =
// Π_{j=0}^{k−1} (c−j)/(n−j); NaN unless 1 ≤ k ≤ n and 0 ≤ c ≤ n.
func PassAll(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return math.NaN()
	}
	if c < k {
		return 0
	}
	p := 1.0
	for j := range k {
		p *= float64(c-j) / float64(n-j)
	}
	return p
}

// PassK is pass@k and pass^k for one k over the tasks with at least k
// runs, as numerators over a shared denominator. When every such task ran
// the same n times and Den fits exactly in a float64 (≤ 2^53), the figures
// are counts of k-subsets of runs: Den = tasks × C(n, k), AtNum the
// subsets with at least one pass, AllNum those where all pass; so pass@1
// reads passing runs / runs. Otherwise AtNum and AllNum are the sums of
// the tasks' estimates and Den the number of tasks.
type PassK struct {
	K, Tasks           int
	AtNum, AllNum, Den float64
}

// Task is one task's runs: N ran, C passed.
type Task struct{ N, C int }

// PassKs computes PassK for each k of ks over tasks.
func PassKs(tasks []Task, ks []int) []PassK {
	out := make([]PassK, 0, len(ks))
	binoms := map[[2]int]*big.Int{}
	binom := func(n, k int) *big.Int {
		key := [2]int{n, k}
		if b, ok := binoms[key]; ok {
			return b
		}
		b := new(big.Int)
		if k <= n {
			b.Binomial(int64(n), int64(k))
		}
		binoms[key] = b
		return b
	}
	for _, k := range ks {
		pk := PassK{K: k}
		n, same := -1, true
		for _, t := range tasks {
			if t.N < k {
				continue
			}
			pk.Tasks++
			if n >= 0 && t.N != n {
				same = false
			}
			n = t.N
		}
		if pk.Tasks == 0 {
			out = append(out, pk)
			continue
		}
		if same {
			den := new(big.Int).Mul(binom(n, k), big.NewInt(int64(pk.Tasks)))
			if den.BitLen() <= 53 {
				all := binom(n, k).Uint64()
				var at, every uint64
				for _, t := range tasks {
					if t.N >= k {
						at += all - binom(n-t.C, k).Uint64()
						every += binom(t.C, k).Uint64()
					}
				}
				pk.AtNum, pk.AllNum, pk.Den = float64(at), float64(every), float64(den.Uint64())
				out = append(out, pk)
				continue
			}
		}
		for _, t := range tasks {
			if t.N >= k {
				pk.AtNum += PassAt(t.N, t.C, k)
				pk.AllNum += PassAll(t.N, t.C, k)
			}
		}
		pk.Den = float64(pk.Tasks)
		out = append(out, pk)
	}
	return out
}
