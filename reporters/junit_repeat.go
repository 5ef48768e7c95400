package reporters

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// JUnit under --repeat N: the N repetitions of a case or conversation are
// one testcase (CI tools key tests on classname and name: GitLab keeps
// only the first of a repeated name, mikepenz/action-junit-report takes
// duplicates for retries), with the elements Maven Surefire writes for
// reruns and that Jenkins' junit plugin and action-junit-report read:
//
//   - a flaky script (passed in some repetitions, not in others) has a
//     <flakyFailure> or <flakyError> per repetition that did not pass;
//     when every case must pass (no thresholds) it also has the <failure>
//     or <error> of its first such repetition, since the verdict fails on
//     it — Surefire's own flaky test passes in the end, so its testcase has
//     none;
//   - a consistent failure (never passed) has the <failure> or <error> of
//     its first repetition and a <rerunFailure> or <rerunError> per later
//     one;
//   - in a suite with thresholds the case testcases are informational:
//     no <failure> or <error>, flaky elements still (the script passed as
//     far as the verdict goes), and no rerun elements.
//
// Every joined testcase's system-out starts with its repetitions in order
// (P passed, F failed, E errored), its counts and flips.

// maxJUnitExtras caps a testcase's rerun and flaky elements; each one's
// stackTrace is capped at maxJUnitExtraBody.
const (
	maxJUnitExtras    = 20
	maxJUnitExtraBody = 8 << 10
)

// jrepeat is what a repetition's testcase carries to joinRepeats: the
// script it is a repetition of, the testcase's name without the
// repetition, the repetition, how it ended (Pass; Fail when an
// expectation was not met; Error otherwise) and what a rerun or flaky
// element says of it.
type jrepeat struct {
	key, name            string
	n                    int
	outcome              schema.Outcome
	typ, message, detail string
}

// jextra is a rerun or flaky element (rerunFailure, rerunError,
// flakyFailure, flakyError).
type jextra struct{ kind, typ, message, stackTrace string }

// caseRepetition is the repetition record of a single case's testcase.
func caseRepetition(c schema.CaseReport) *jrepeat {
	jr := &jrepeat{key: "case\x00" + c.ID, n: c.Repeat, outcome: c.Outcome}
	switch c.Outcome {
	case schema.Pass:
		return jr
	case schema.Fail:
		jr.typ = junitAssertionFailed
	default:
		jr.outcome, jr.typ = schema.Error, schema.ErrEvaluation
		if c.Error != nil && oneLine(c.Error.Type) != "" {
			jr.typ = oneLine(c.Error.Type)
		}
	}
	jr.message, jr.detail = caseSummary(c), caseDetail(c)
	return jr
}

// transcriptRepetition is the repetition record of a conversation's (or
// scenario's) testcase: it failed when a turn failed, else errored when a
// turn errored or was not run.
func transcriptRepetition(t *Transcript, transcript string) *jrepeat {
	whole := *t
	whole.Repeat = 0
	jr := &jrepeat{key: "script\x00" + t.Kind + "\x00" + t.Source + "\x00" + t.Script, name: capLine(whole.Name(), maxJUnitName), n: t.Repeat, outcome: schema.Pass}
	if t.Outcome == schema.Pass {
		return jr
	}
	jr.outcome, jr.typ = schema.Error, errTypeOf(t)
	for _, tt := range t.Turns {
		if tt.Outcome == schema.Fail {
			jr.outcome, jr.typ = schema.Fail, junitAssertionFailed
			break
		}
	}
	jr.message, jr.detail = t.firstFailure(), transcript
	return jr
}

// joinRepeats joins the testcases of each script's repetitions into one,
// where its first repetition stood; other testcases stay as they are.
func joinRepeats(cases []jcase) []jcase {
	var out []jcase
	at := map[string]int{}
	reps := map[int][]jcase{}
	for _, c := range cases {
		if c.repeat == nil {
			out = append(out, c)
			continue
		}
		i, ok := at[c.repeat.key]
		if !ok {
			i = len(out)
			at[c.repeat.key] = i
			out = append(out, c)
		}
		reps[i] = append(reps[i], c)
	}
	for i, rs := range reps {
		out[i] = joinRepetitions(rs)
	}
	return out
}

// repeatTally counts a script's repetitions and writes them in order.
type repeatTally struct {
	passed, failed, errored, flips int
	outcomes                       string
}

func tallyRepetitions(reps []jcase) repeatTally {
	var t repeatTally
	var b strings.Builder
	for i, r := range reps {
		switch r.repeat.outcome {
		case schema.Pass:
			t.passed++
			b.WriteByte('P')
		case schema.Fail:
			t.failed++
			b.WriteByte('F')
		default:
			t.errored++
			b.WriteByte('E')
		}
		if i > 0 && (r.repeat.outcome == schema.Pass) != (reps[i-1].repeat.outcome == schema.Pass) {
			t.flips++
		}
	}
	t.outcomes = b.String()
	return t
}

// word names the script's class in one word or three.
func (t repeatTally) word(n int) string {
	switch {
	case t.passed == n:
		return "stable"
	case t.passed == 0:
		return "consistent failure"
	case t.failed > 0:
		return "flaky"
	}
	return "flaky on errors"
}

// class names the script's class in messages.
func (t repeatTally) class(n int) string {
	switch {
	case t.passed == n:
		return fmt.Sprintf("passed every repetition (%d)", n)
	case t.passed == 0:
		return fmt.Sprintf("did not pass in any of %d repetitions", n)
	case t.failed > 0:
		return fmt.Sprintf("flaky: passed %d of %d repetitions, %d %s", t.passed, n, t.flips, plural(t.flips, "flip", "flips"))
	}
	return fmt.Sprintf("flaky on errors: passed %d of %d repetitions, %d %s", t.passed, n, t.flips, plural(t.flips, "flip", "flips"))
}

// joinRepetitions is the one testcase of a script's repetitions.
func joinRepetitions(reps []jcase) jcase {
	slices.SortStableFunc(reps, func(a, b jcase) int { return a.repeat.n - b.repeat.n })
	t := tallyRepetitions(reps)
	n := len(reps)
	j := jcase{classname: reps[0].classname, name: cmp.Or(reps[0].repeat.name, reps[0].name), file: reps[0].file, line: reps[0].line}
	var main, skip *jcase
	var outs []string
	for i := range reps {
		r := &reps[i]
		j.time += r.time
		j.failingSource = j.failingSource || r.failingSource
		switch {
		case main == nil && (r.kind == "failure" || r.kind == "error"):
			main = r
		case skip == nil && r.kind == "skipped":
			skip = r
		}
		if r.out != "" && len(outs) == 0 {
			outs = append(outs, fmt.Sprintf("repetition %d: %s", r.repeat.n, r.out))
		}
	}
	summary := fmt.Sprintf("repetitions %s: passed %d, failed %d, errored %d of %d; %d %s", t.outcomes, t.passed, t.failed, t.errored, n, t.flips, plural(t.flips, "flip", "flips"))
	switch {
	case main != nil:
		j.kind, j.typ = main.kind, main.typ
		j.message = fmt.Sprintf("%s; repetition %d: %s", t.class(n), main.repeat.n, main.message)
		j.body = summary + "\n" + main.body
	case skip != nil && t.passed == 0:
		j.kind, j.typ, j.message, j.body = skip.kind, skip.typ, skip.message, skip.body
	}
	mainRep := 0
	if main != nil {
		mainRep = main.repeat.n
	}
	j.extras, outs = repetitionExtras(j, reps, t, mainRep, outs)
	j.out = strings.Join(append([]string{t.word(n) + "; " + summary}, outs...), "\n")
	return j
}

// repetitionExtras are the flaky elements of a flaky script, or the rerun
// elements of a consistent failure whose testcase failed, for each
// repetition that did not pass (the first maxJUnitExtras; outs notes the
// rest). mainRep is the repetition whose failure or error the testcase
// carries (0: none).
func repetitionExtras(j jcase, reps []jcase, t repeatTally, mainRep int, outs []string) ([]jextra, []string) {
	prefix := "flaky"
	switch {
	case t.passed > 0:
	case j.kind == "failure" || j.kind == "error":
		prefix = "rerun"
	default:
		return nil, outs
	}
	var extras []jextra
	left := 0
	for _, r := range reps {
		rp := r.repeat
		if rp.outcome == schema.Pass || prefix == "rerun" && rp.n == mainRep {
			continue
		}
		if len(extras) == maxJUnitExtras {
			left++
			continue
		}
		kind := prefix + "Error"
		if rp.outcome == schema.Fail {
			kind = prefix + "Failure"
		}
		extras = append(extras, jextra{kind: kind, typ: rp.typ, message: fmt.Sprintf("repetition %d of %d: %s", rp.n, len(reps), rp.message),
			stackTrace: fmt.Sprintf("repetition %d of %d: %s\n%s", rp.n, len(reps), rp.message, rp.detail)})
	}
	if left > 0 {
		outs = append(outs, fmt.Sprintf("%d more repetitions that did not pass are not listed (at most %d %s elements)", left, maxJUnitExtras, prefix))
	}
	return extras, outs
}

// withoutReruns drops the rerun elements of a testcase whose failure or
// error was taken away (a passing verdict): they would rerun nothing.
func withoutReruns(es []jextra) []jextra {
	return slices.DeleteFunc(es, func(e jextra) bool { return strings.HasPrefix(e.kind, "rerun") })
}

// repeatLines list the run's flaky cases, those flaky on errors and its
// consistent failures (metrics.repeat) for the suite's system-out, so a
// CI log shows them whatever the testcases are.
func repeatLines(r *schema.Report) []string {
	if r.Metrics == nil {
		return nil
	}
	rep := repeatOf(&r.Metrics.Node)
	if rep == nil {
		return nil
	}
	var out []string
	for _, l := range repeatLists(rep, byThresholds(r)) {
		if l.count == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %d of %d scripts (--repeat %d)", strings.ToLower(l.title), l.count, rep.Scripts, rep.N))
		for _, c := range l.cases {
			out = append(out, fmt.Sprintf("  %s  %s  %s  passed %d, failed %d, errored %d of %d; %d %s  %s", oneLine(c.ID), oneLine(c.Kind+" "+c.Source),
				oneLine(c.Text), c.Passed, c.Failed, c.Errored, c.Runs, c.Flips, plural(c.Flips, "flip", "flips"), c.Outcomes))
		}
		if more := l.count - len(l.cases); more > 0 {
			out = append(out, fmt.Sprintf("  … and %d more", more))
		}
	}
	return out
}
