package assert

import (
	"fmt"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// BuildReport assembles the finished report of a run from the collector:
// metrics, thresholds, verdict, groups and cases. run is filled by the
// caller (ids, times, target).
func BuildReport(s *spec.Suite, col *Collector, run schema.RunInfo, version string, warnings []string) *schema.Report {
	m := col.Metrics()
	ths := EvaluateThresholds(s, m)
	if ths == nil {
		ths = []schema.ThresholdResult{}
	}
	files := make([]string, len(s.Files))
	copy(files, s.Files)
	rep := &schema.Report{
		Tree: s.Tree, Tool: "nlutest", Version: version,
		Suite: schema.SuiteInfo{Name: s.Name, Description: s.Description, Schema: s.SchemaName, Dir: s.Dir, Files: files},
		Run:   run, Thresholds: ths, Intervals: ReportIntervals(s), Metrics: m, Groups: col.Groups(), Warnings: warnings,
		CasesOmitted: col.Omitted(),
	}
	// The cases are listed from the collector's entries as the renderers
	// read them (Collector.Listed), not made into reports here; no case
	// listed is an empty list, which report.json writes as [].
	if l := col.Listed(); l.Len() > 0 {
		rep.SetListed(l)
	} else {
		rep.Cases = []schema.CaseReport{}
	}
	if n := col.Cached(); n > 0 {
		rep.Run.Cached = n
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d of %d results came from the response cache (--cache): they are marked cached and left out of the latency metrics and thresholds", n, col.Total()))
	}
	if n, turns := col.StateChecksSkipped(); n > 0 {
		rep.Warnings = append(rep.Warnings, stateSkippedWarning(n, turns, run.Target))
	}
	if rep.CasesOmitted > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d cases are not listed one by one in this report (it keeps %d passing and %d failing or erroring cases); every outcome is in results.jsonl", rep.CasesOmitted, schema.MaxReportCases, schema.MaxReportCases))
	}
	rep.Verdict = Decide(m, ths, run.ErrorBudget)
	if run.Interrupted {
		rep.Verdict.Outcome = schema.Fail
		rep.Verdict.Reasons = append(rep.Verdict.Reasons, "the run was interrupted; metrics cover only the cases that finished")
	}
	return rep
}

// stateSkippedWarning is the report's note of n state checks skipped on
// turns results of target, which records no dialogue state.
func stateSkippedWarning(n, turns int, target string) string {
	who := "the target"
	if target != "" {
		who = fmt.Sprintf("target %q", target)
	}
	return fmt.Sprintf("%d state checks on %d turns were skipped: %s records no dialogue state (a rasa target with mode = \"webhook\" and tracker = true does), so its state: expectations, conditions reading state and state: captures are checked only against targets that record it", n, turns, who)
}
