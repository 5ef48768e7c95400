package assert

import (
	"slices"
	"strings"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// robustnessFamily is metrics.robustness, the robustness score of the YD/T
// draft "面向应用场景的自然语言处理模型评估方法": R = (D1 + S1) / (D + S),
// D the original inputs (cases of sources with a perturb block, not
// perturbed themselves), D1 those that passed, S the perturbed inputs and
// S1 those that passed; per perturbation kind, total, passed and accuracy.
// It also lists the perturbed cases that failed while their original
// passed ("broken"), with the original's text.
type robustnessFamily struct{}

func (robustnessFamily) Shape() *schema.Family { return schema.RobustnessFamily }

// NewAcc applies to suites with a source that has a perturb block.
func (robustnessFamily) NewAcc(s *spec.Suite) Acc {
	a := &robustAcc{perturbing: map[schema.SourceKey]bool{}}
	if s == nil {
		return a
	}
	for _, src := range s.CaseSources {
		if src.Info().Perturb != nil {
			a.perturbing[schema.SourceKey{Kind: src.Kind(), Name: src.Name()}] = true
		}
	}
	if len(a.perturbing) == 0 {
		return nil
	}
	return a
}

// MaxBroken caps the broken cases a node lists.
const MaxBroken = 50

// robustAcc accumulates one node. It keeps each original's outcome and
// text and each failed variant until Fill pairs them.
type robustAcc struct {
	perturbing map[schema.SourceKey]bool
	d, d1      int
	kinds      map[string]*schema.RobustKind
	originals  map[string]robustOrig
	failed     []schema.BrokenCase
}

type robustOrig struct {
	passed bool
	text   string
}

func (a *robustAcc) Add(o *Observation) {
	r := o.Result
	passed := r.Outcome == schema.Pass
	if r.Perturbation == "" {
		if !a.perturbing[r.SourceKey()] {
			return
		}
		a.d++
		if passed {
			a.d1++
		}
		if a.originals == nil {
			a.originals = map[string]robustOrig{}
		}
		a.originals[r.ID] = robustOrig{passed, r.Text}
		return
	}
	if a.kinds == nil {
		a.kinds = map[string]*schema.RobustKind{}
	}
	k := a.kinds[r.Perturbation]
	if k == nil {
		k = &schema.RobustKind{}
		a.kinds[r.Perturbation] = k
	}
	k.Total++
	if passed {
		k.Passed++
		return
	}
	a.failed = append(a.failed, schema.BrokenCase{ID: r.ID, Perturbation: r.Perturbation, Text: r.Text, Original: r.Original})
}

func (a *robustAcc) Merge(o Acc) {
	b := o.(*robustAcc)
	a.d += b.d
	a.d1 += b.d1
	for name, bk := range b.kinds {
		if a.kinds == nil {
			a.kinds = map[string]*schema.RobustKind{}
		}
		k := a.kinds[name]
		if k == nil {
			k = &schema.RobustKind{}
			a.kinds[name] = k
		}
		k.Total += bk.Total
		k.Passed += bk.Passed
	}
	for id, v := range b.originals {
		if a.originals == nil {
			a.originals = map[string]robustOrig{}
		}
		a.originals[id] = v
	}
	a.failed = append(a.failed, b.failed...)
}

func (a *robustAcc) Fill(n *schema.Node) {
	if a.d == 0 && len(a.kinds) == 0 {
		return
	}
	v := &schema.Robustness{Original: schema.RobustCounts{Total: a.d, Passed: a.d1}, Kind: map[string]*schema.RobustKind{}}
	for name, k := range a.kinds {
		kc := *k
		kc.Accuracy = schema.R(k.Passed, k.Total)
		v.Kind[name] = &kc
		v.Perturbed.Total += k.Total
		v.Perturbed.Passed += k.Passed
	}
	v.Score = schema.R(a.d1+v.Perturbed.Passed, a.d+v.Perturbed.Total)
	for _, f := range a.failed {
		if orig, ok := a.originals[f.Original]; ok && orig.passed {
			f.OriginalText = orig.text
			v.Broken = append(v.Broken, f)
		}
	}
	slices.SortFunc(v.Broken, func(x, y schema.BrokenCase) int {
		if c := strings.Compare(x.Original, y.Original); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	if len(v.Broken) > MaxBroken {
		v.Broken = v.Broken[:MaxBroken]
	}
	SetFamily(n, "robustness", v)
}
