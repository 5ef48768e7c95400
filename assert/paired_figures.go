package assert

import (
	"fmt"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// The contributions of the families whose figures paired comparisons
// test (paired.go). Each mirrors its family's Add: a unit's numbers summed
// over its results give, through the figure's Pass, Stat or Value, what
// the family reports — TestPairedFiguresMatchReport checks every figure
// against the report of the same run.

// passFail is the figure addr of numbers whose pass and counted numbers
// are at the given places (a positive count passes or counts).
func passFail(addr string, width, pass, counted int) Figure {
	return Figure{Addr: addr, Kind: PassFail, Width: width,
		Pass: func(v []float64) (bool, bool) { return v[pass] > 0, v[counted] > 0 }}
}

// ratioOf is the Sums figure addr = sums[num]/sums[den].
func ratioOf(addr string, width, num, den int) Figure {
	return Figure{Addr: addr, Kind: Sums, Width: width,
		Stat: func(s []float64) float64 { return s[num] / s[den] }}
}

// cases: (1, passed, counted, errored).
func (casesFamily) pairedContribs(*spec.Suite, *Pairing) []contrib {
	return []contrib{{unit: schema.UnitCases, width: 4,
		add: func(o *Observation, v []float64) bool {
			v[0] = 1
			switch o.Result.Outcome {
			case schema.Pass:
				v[1], v[2] = 1, 1
			case schema.Error:
				v[3] = 1
			default:
				v[2] = 1
			}
			return true
		},
		figs: []Figure{passFail("accuracy", 4, 1, 2), passFail("error_rate", 4, 3, 0)},
	}}
}

// dimension: a leaf or items dimension's (1, correct, recognized,
// expected) (metrics.DimContribution), a case dimension's (1, met).
func (dimensionFamily) pairedContribs(s *spec.Suite, _ *Pairing) []contrib {
	if s.Schema == nil {
		return nil
	}
	var out []contrib
	for i, d := range s.Schema.Dimensions {
		at := "dimension." + d.Name + "."
		switch d.Kind {
		case schema.KindLeaf, schema.KindItems:
			out = append(out, contrib{unit: schema.UnitCases, width: 4,
				add: func(o *Observation, v []float64) bool {
					if o.Eval == nil || o.Result.Outcome == schema.Error {
						return false
					}
					t, ok := o.Eval.Units(i)
					if !ok {
						return false
					}
					c, r, e := t.Totals()
					v[0], v[1], v[2], v[3] = 1, float64(c), float64(r), float64(e)
					return true
				},
				figs: []Figure{
					ratioOf(at+"precision", 4, 1, 2),
					ratioOf(at+"recall", 4, 1, 3),
					{Addr: at + "error_rate", Kind: Sums, Width: 4, Stat: func(s []float64) float64 { return (s[2] - s[1]) / s[2] }},
					{Addr: at + "f1", Kind: Sums, Width: 4, Stat: func(s []float64) float64 { return 2 * s[1] / (s[2] + s[3]) }},
				}})
		case schema.KindCase:
			out = append(out, contrib{unit: schema.UnitCases, width: 2,
				add: func(o *Observation, v []float64) bool {
					if o.Eval == nil || o.Result.Outcome == schema.Error {
						return false
					}
					met, ok := o.Eval.CaseMet(i)
					if !ok {
						return false
					}
					v[0] = 1
					if met {
						v[1] = 1
					}
					return true
				},
				figs: []Figure{passFail(at+"accuracy", 2, 1, 0)}})
		}
	}
	return out
}

// label: a label dimension's (1, expected, predicted), the labels as
// indexes of the pairing (predicted −1: none); its accuracy and the
// averages of its confusion cells (metrics.LabelContribution).
func (labelFamily) pairedContribs(s *spec.Suite, p *Pairing) []contrib {
	if s.Schema == nil {
		return nil
	}
	var out []contrib
	for i, d := range s.Schema.Dimensions {
		if d.Kind != schema.KindLabel {
			continue
		}
		at := "label." + d.Name + "."
		c := contrib{unit: schema.UnitCases, width: 3,
			add: func(o *Observation, v []float64) bool {
				if o.Eval == nil || o.Result.Outcome == schema.Error {
					return false
				}
				l, ok := o.Eval.Label(i)
				if !ok {
					return false
				}
				v[0], v[1], v[2] = 1, float64(p.labelIndex(l.Expected)), -1
				if l.Predicted != "" {
					v[2] = float64(p.labelIndex(l.Predicted))
				}
				return true
			},
			figs: []Figure{{Addr: at + "accuracy", Kind: PassFail, Width: 3,
				Pass: func(v []float64) (bool, bool) { return v[2] >= 0 && v[1] == v[2], v[0] > 0 }}}}
		for k, name := range []string{"macro_precision", "macro_recall", "macro_f1", "micro_f1", "weighted_f1"} {
			c.figs = append(c.figs, Figure{Addr: at + name, Kind: LabelAverage, Width: 3, Average: k, Fixed: d.Labels})
		}
		out = append(out, c)
	}
	return out
}

// hasKind reports whether s has a case source of kind.
func hasKind(s *spec.Suite, kind string) bool {
	for _, src := range s.CaseSources {
		if src.Kind() == kind {
			return true
		}
	}
	return false
}

// turnsByName maps the names of s's sources of kind to their turns.
func turnsByName(s *spec.Suite, kind string) map[string]int {
	out := map[string]int{}
	for _, src := range s.CaseSources {
		if src.Kind() == kind {
			out[src.Name()] = src.Info().Turns
		}
	}
	return out
}

// dialogue: a conversation run's (turns, turns passed, its source's
// turns for each turn recorded): turn accuracy is a ratio of the sums
// (metrics.TurnContribution), and a conversation completed when its
// turns passed are its source's turns or, if more, those it ran.
func (dialogueFamily) pairedContribs(s *spec.Suite, _ *Pairing) []contrib {
	if !hasKind(s, spec.KindConversation) && !hasKind(s, spec.KindMemory) {
		return nil
	}
	turns := turnsByName(s, spec.KindConversation)
	return []contrib{{unit: schema.UnitConversations, width: 3,
		add: func(o *Observation, v []float64) bool {
			r := o.Result
			if r.Turn < 1 || r.SourceKind == spec.KindScenario {
				return false
			}
			v[0], v[2] = 1, float64(turns[r.Source])
			if r.Outcome == schema.Pass {
				v[1] = 1
			}
			return true
		},
		figs: []Figure{
			{Addr: "dialogue.task_completion", Kind: PassFail, Width: 3,
				Pass: func(v []float64) (bool, bool) { return v[1] == max(v[2]/v[0], v[0]), v[0] > 0 }},
			ratioOf("dialogue.turn_accuracy", 3, 1, 0),
		}}}
}

// memory: a memory case run's (questions, entailed)
// (metrics.MemoryContribution).
func (memoryFamily) pairedContribs(s *spec.Suite, _ *Pairing) []contrib {
	if !hasKind(s, spec.KindMemory) {
		return nil
	}
	return []contrib{{unit: schema.UnitMemoryCases, width: 2,
		add: func(o *Observation, v []float64) bool {
			r := o.Result
			if r.Fact == "" {
				return false
			}
			v[0] = 1
			if r.Verdict == schema.Entailed {
				v[1] = 1
			}
			return true
		},
		figs: []Figure{ratioOf("memory.score", 2, 1, 0)}}}
}

// scenario: a scenario run's (turns, turns its success condition held
// on, turns whose final state check failed); it succeeded when the
// condition held and no final state check failed.
func (scenarioFamily) pairedContribs(s *spec.Suite, _ *Pairing) []contrib {
	if !hasKind(s, spec.KindScenario) {
		return nil
	}
	infos := map[string]*spec.SourceInfo{}
	for _, src := range s.CaseSources {
		if src.Kind() == spec.KindScenario {
			infos[src.Name()] = src.Info()
		}
	}
	return []contrib{{unit: schema.UnitScenarios, width: 3,
		add: func(o *Observation, v []float64) bool {
			r := o.Result
			if r.Turn < 1 || r.SourceKind != spec.KindScenario {
				return false
			}
			v[0] = 1
			ok := o.Memo(scenarioFamily{}, func() any {
				info := infos[r.Source]
				return info != nil && info.Success(r)
			}).(bool)
			if ok {
				v[1] = 1
			}
			if r.Tools != nil && r.Tools.FinalChecked && !r.Tools.FinalPassed {
				v[2] = 1
			}
			return true
		},
		figs: []Figure{{Addr: "scenario.success_rate", Kind: PassFail, Width: 3,
			Pass: func(v []float64) (bool, bool) { return v[1] > 0 && v[2] == 0, v[0] > 0 }}}}}
}

// repeat: a repetition's (turns ran, passed, failed, its script's turns
// for each turn ran), folded into its script's (passing repetitions,
// repetitions recorded): pass@1 is the mean over scripts of their
// fraction (metrics.PassAt1Contribution).
func (repeatFamily) pairedContribs(s *spec.Suite, _ *Pairing) []contrib {
	want := map[[2]string]int{}
	for _, src := range s.CaseSources {
		want[[2]string{src.Kind(), src.Name()}] = max(src.Info().Turns, 1)
	}
	return []contrib{{unit: unitRepetitions, width: 4,
		add: func(o *Observation, v []float64) bool {
			r := o.Result
			if r.Repeat < 1 {
				return false
			}
			kind, name := r.SourceOf()
			w, ok := want[[2]string{kind, name}]
			if !ok {
				w = 1
			}
			v[0], v[3] = 1, float64(w)
			switch r.Outcome {
			case schema.Pass:
				v[1] = 1
			case schema.Fail:
				v[2] = 1
			}
			return true
		},
		fold: func(rep, script []float64) {
			if rep[0] == 0 {
				return
			}
			t := repTally{ran: int32(rep[0]), passed: int32(rep[1]), failed: int32(rep[2])}
			script[0]++ // a repetition recorded
			if repOutcome(t, int(rep[3]/rep[0])) == 'P' {
				script[1]++
			}
		},
		figs: []Figure{{Addr: "repeat.pass_at_1", Unit: schema.UnitScripts, Kind: Mean, Width: 2,
			Value: func(v []float64) (float64, bool) { return v[1] / v[0], v[0] > 0 }}}}}
}

// text: a case with references' (1, exact match, token F1, ROUGE-1,
// ROUGE-2, ROUGE-L, METEOR); exact match is a pass or not, the others
// means of per-case scores (metrics.MeanContribution).
func (textFamily) pairedContribs(s *spec.Suite, _ *Pairing) []contrib {
	if (textFamily{}).NewAcc(s) == nil {
		return nil
	}
	opts := TextMetricsOf(s)
	c := contrib{unit: schema.UnitCases, width: 7,
		add: func(o *Observation, v []float64) bool {
			if len(o.Result.References) == 0 {
				return false
			}
			tc := o.Memo(textFamily{}, func() any { return newTextCase(o.Result, opts) }).(*textCase)
			v[0], v[1], v[2], v[3], v[4], v[5], v[6] = 1, tc.em, tc.f1, tc.r1, tc.r2, tc.rl, tc.meteor
			return true
		},
		figs: []Figure{{Addr: "text.exact_match", Kind: PassFail, Width: 7,
			Pass: func(v []float64) (bool, bool) { return v[1] >= 1, v[0] > 0 }}}}
	for i, name := range []string{"f1", "rouge1", "rouge2", "rougeL", "meteor"} {
		c.figs = append(c.figs, Figure{Addr: "text." + name, Kind: Mean, Width: 7,
			Value: func(v []float64) (float64, bool) { return v[2+i] / v[0], v[0] > 0 }})
	}
	return []contrib{c}
}

// rubric: per rubric name, a case's (verdicts, passes); the pass rate is
// a ratio of the sums (a case may carry several rubrics of one name).
func (rubricFamily) pairedContribs(s *spec.Suite, _ *Pairing) []contrib {
	var out []contrib
	for _, name := range s.RubricNames() {
		out = append(out, contrib{unit: schema.UnitCases, width: 2,
			add: func(o *Observation, v []float64) bool {
				r := o.Result
				if r.Error != nil {
					return false
				}
				for i := range r.Rubrics {
					rv := &r.Rubrics[i]
					if rv.Verdict == "" || rv.Name != name {
						continue
					}
					v[0]++
					if rv.Verdict == schema.RubricPass {
						v[1]++
					}
				}
				return v[0] > 0
			},
			figs: []Figure{ratioOf(fmt.Sprintf("rubric[%q].pass_rate", name), 2, 1, 0)}})
	}
	return out
}
