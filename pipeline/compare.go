package pipeline

import (
	"fmt"
	"path/filepath"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/assert/compare"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// TargetRun is one target's finished run in a run against several
// targets: its name, run directory and report (compare.Target).
type TargetRun = compare.Target

// Files of the directory of a run against several targets, besides one
// run directory per target.
const (
	// ComparisonFile is the comparison of the finished targets' runs.
	ComparisonFile = "comparison.json"
	// TargetsFile records the run against several targets as it begins
	// (Targets): which targets, in which directories, with which suite and
	// selection, so resume and eval can finish and rebuild it.
	TargetsFile = "targets.json"
)

// TargetDir is the run directory of target name inside the run directory
// dir of a run against several targets: DIR/TARGET, the name made a path
// component by PathName, so no target name leaves dir.
func TargetDir(dir, name string) (string, error) { return ChildDir(dir, name) }

// PairOptions say how runs are compared unit by unit: the families their
// suite was loaded with, whether unreviewed cases count (as for
// Evaluate), and the level of the tests (compare.DefaultAlpha when 0).
type PairOptions struct {
	Families          assert.Families
	IncludeUnreviewed bool
	Alpha             float64
}

// Compare builds the comparison of the finished runs of suite s against
// several targets (compare.Targets), every target after the first with
// the significance of its differences with the first (compare.Runs),
// paired on the units both ran: each target's results are read again and
// evaluated against s to record its units, as eval reads them, on every
// core; the reports are not changed. A target whose results cannot be
// read gets a significance without tests that says why.
func Compare(s *spec.Suite, dir string, runs []TargetRun, o PairOptions) *schema.Comparison {
	if len(runs) > 1 {
		addrs, nodes := assert.ThresholdMetrics(s)
		p := assert.NewPairing(nodes)
		units := make([]*assert.Units, len(runs))
		errs := make([]error, len(runs))
		for i, tr := range runs {
			units[i], errs[i] = RunUnits(s, tr.Dir, p, o)
		}
		co := compare.Options{Alpha: o.Alpha, Stats: assert.InferOptions(assert.StatisticsOf(s)), Gated: addrs}
		base := compare.Run{Metrics: s.Tree.ReadMetrics(runs[0].Report.Metrics), Units: units[0]}
		for i := 1; i < len(runs); i++ {
			oi := co
			if err := cmpErr(errs[0], errs[i]); err != nil {
				oi.Unpaired = fmt.Sprintf("no paired tests: %v", err)
			}
			cand := compare.Run{Metrics: s.Tree.ReadMetrics(runs[i].Report.Metrics), Units: units[i]}
			b := base
			if oi.Unpaired != "" {
				b.Units, cand.Units = nil, nil
			}
			runs[i].Significance = compare.Runs(b, cand, oi)
		}
	}
	return compare.Targets(dir, runs)
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// RunUnits reads the results of the run directory dir again, evaluating
// them against s as eval does, and returns the units a paired
// comparison of the run needs (assert.Collector.RecordUnits with p).
func RunUnits(s *spec.Suite, dir string, p *assert.Pairing, o PairOptions) (*assert.Units, error) {
	meta, err := ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	col, _, err := Evaluate(s, []string{dir}, meta, EvalOptions{Families: o.Families, IncludeUnreviewed: o.IncludeUnreviewed, Pairing: p})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Clean(dir), err)
	}
	return col.Units(), nil
}
