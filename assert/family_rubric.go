package assert

import (
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// rubricFamily is metrics.rubric["NAME"] (SPEC §14.5): per rubric name,
// the results judged, passed and unparseable, and the mean 1–5 score of
// rubrics with a pass condition. Rubrics of the same name in several
// blocks count together.
type rubricFamily struct{}

func (rubricFamily) Shape() *schema.Family { return schema.RubricFamily }
func (rubricFamily) NewAcc(s *spec.Suite) Acc {
	if len(s.RubricNames()) == 0 {
		return nil
	}
	return &rubricAcc{}
}

type rubricCounts struct {
	judged, passed, unparseable, scored, scoreSum int
}

type rubricAcc struct {
	by map[string]*rubricCounts
}

func (a *rubricAcc) counts(name string) *rubricCounts {
	if a.by == nil {
		a.by = map[string]*rubricCounts{}
	}
	c := a.by[name]
	if c == nil {
		c = &rubricCounts{}
		a.by[name] = c
	}
	return c
}

func (a *rubricAcc) Add(o *Observation) {
	r := o.Result
	if r.Error != nil {
		return
	}
	for i := range r.Rubrics {
		v := &r.Rubrics[i]
		if v.Verdict == "" {
			continue
		}
		c := a.counts(v.Name)
		c.judged++
		switch v.Verdict {
		case schema.RubricPass:
			c.passed++
		case schema.Unparseable:
			c.unparseable++
		}
		if v.Score > 0 {
			c.scored++
			c.scoreSum += v.Score
		}
	}
}

func (a *rubricAcc) Merge(o Acc) {
	for name, oc := range o.(*rubricAcc).by {
		c := a.counts(name)
		c.judged += oc.judged
		c.passed += oc.passed
		c.unparseable += oc.unparseable
		c.scored += oc.scored
		c.scoreSum += oc.scoreSum
	}
}

func (a *rubricAcc) Fill(n *schema.Node) {
	if len(a.by) == 0 {
		return
	}
	out := make(map[string]*schema.RubricStats, len(a.by))
	for name, c := range a.by {
		st := &schema.RubricStats{Judged: c.judged, Passed: c.passed, PassRate: schema.R(c.passed, c.judged), Unparseable: c.unparseable}
		if c.scored > 0 {
			m := float64(c.scoreSum) / float64(c.scored)
			st.MeanScore = &m
		}
		out[name] = st
	}
	SetFamily(n, "rubric", out)
}
