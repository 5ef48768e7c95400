package assert

import (
	"slices"
	"strconv"

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
		mc = &memoryCounts{facts: map[string]struct{}{}}
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
	mc.facts[runKey(r)+"\x1f"+r.Fact] = struct{}{}
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
