package assert

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// memoryFamily is metrics.memory: the verdicts of the answers to memory
// questions (Result.Verdict, set by the evaluator), overall and per
// distance. Facts are counted once per fact and case run.
type memoryFamily struct{}

func (memoryFamily) Shape() *schema.Family { return schema.MemoryFamily }
func (memoryFamily) NewAcc(s *spec.Suite) Acc {
	for _, src := range s.CaseSources {
		if src.Kind() == spec.KindMemory {
			return &memoryAcc{}
		}
	}
	return nil
}

// memoryCounts are the counts of one distance.
type memoryCounts struct {
	questions, entailed, neutral, contradicted, unanswered, unparseable int
	// facts holds the (run, fact) pairs asked about.
	facts map[string]struct{}
	// runs holds each case run's questions entailed and asked: its
	// contribution (metrics.MemoryContribution), for the intervals.
	runs map[string]*[2]int
}

type memoryAcc struct {
	byDistance map[int]*memoryCounts
}

func (a *memoryAcc) counts(d int) *memoryCounts {
	if a.byDistance == nil {
		a.byDistance = map[int]*memoryCounts{}
	}
	mc := a.byDistance[d]
	if mc == nil {
		mc = &memoryCounts{facts: map[string]struct{}{}, runs: map[string]*[2]int{}}
		a.byDistance[d] = mc
	}
	return mc
}

func (a *memoryAcc) Add(o *Observation) {
	r := o.Result
	if r.Fact == "" {
		return
	}
	mc := a.counts(r.Distance)
	mc.questions++
	switch r.Verdict {
	case schema.Entailed:
		mc.entailed++
	case schema.Contradicted:
		mc.contradicted++
	case schema.Unanswered:
		mc.unanswered++
	case schema.Unparseable:
		mc.unparseable++
	default:
		mc.neutral++
	}
	run := runKey(r)
	mc.facts[run+"\x1f"+r.Fact] = struct{}{}
	mc.run(run)[1]++
	if r.Verdict == schema.Entailed {
		mc.run(run)[0]++
	}
}

// run returns the counts of the case run k, made when new.
func (mc *memoryCounts) run(k string) *[2]int {
	c := mc.runs[k]
	if c == nil {
		c = &[2]int{}
		mc.runs[k] = c
	}
	return c
}

func (a *memoryAcc) Merge(o Acc) {
	for d, oc := range o.(*memoryAcc).byDistance {
		mc := a.counts(d)
		mc.questions += oc.questions
		mc.entailed += oc.entailed
		mc.neutral += oc.neutral
		mc.contradicted += oc.contradicted
		mc.unanswered += oc.unanswered
		mc.unparseable += oc.unparseable
		for k := range oc.facts {
			mc.facts[k] = struct{}{}
		}
		for k, c := range oc.runs {
			r := mc.run(k)
			r[0] += c[0]
			r[1] += c[1]
		}
	}
}

func (mc *memoryCounts) stats() schema.MemoryStats {
	return schema.MemoryStats{Facts: len(mc.facts), Questions: mc.questions, Entailed: mc.entailed, Neutral: mc.neutral,
		Contradicted: mc.contradicted, Unanswered: mc.unanswered, Unparseable: mc.unparseable, Score: schema.R(mc.entailed, mc.questions)}
}

func (a *memoryAcc) Fill(n *schema.Node) {
	if len(a.byDistance) == 0 {
		return
	}
	out := &schema.Memory{Distance: make(map[string]*schema.MemoryStats, len(a.byDistance))}
	ds := make([]int, 0, len(a.byDistance))
	for d := range a.byDistance {
		ds = append(ds, d)
	}
	slices.Sort(ds)
	t := &out.MemoryStats
	for _, d := range ds {
		st := a.byDistance[d].stats()
		out.Distance[strconv.Itoa(d)] = &st
		t.Facts += st.Facts
		t.Questions += st.Questions
		t.Entailed += st.Entailed
		t.Neutral += st.Neutral
		t.Contradicted += st.Contradicted
		t.Unanswered += st.Unanswered
		t.Unparseable += st.Unparseable
	}
	t.Score = schema.R(t.Entailed, t.Questions)
	SetFamily(n, "memory", out)
}

// Intervals bootstraps the memory score over the memory case runs
// (metrics.MemoryContribution), overall and per distance.
func (a *memoryAcc) Intervals(n *schema.Node, r *Resampler) {
	out, _ := n.Families["memory"].(*schema.Memory)
	if out == nil {
		return
	}
	all := infer.NewTally(2)
	for d, mc := range a.byDistance {
		t := infer.NewTally(2)
		for _, c := range mc.runs {
			t.Add(float64(c[0]), float64(c[1]))
		}
		key := strconv.Itoa(d)
		if st := out.Distance[key]; st != nil {
			metrics.MemoryContribution.Set(t, r.Options(fmt.Sprintf("memory.distance[%q]", key)), &st.Score)
		}
	}
	// A run's questions are all at its distance; summed over the
	// distances in case one were not.
	runs := map[string][2]int{}
	for _, mc := range a.byDistance {
		for k, c := range mc.runs {
			x := runs[k]
			runs[k] = [2]int{x[0] + c[0], x[1] + c[1]}
		}
	}
	for _, c := range runs {
		all.Add(float64(c[0]), float64(c[1]))
	}
	metrics.MemoryContribution.Set(all, r.Options("memory"), &out.Score)
}
