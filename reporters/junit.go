package reporters

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// JUnit limits: bodies are capped so a huge response cannot make CI parsers
// give up (GitLab skips large text nodes, Jenkins trims them anyway).
const (
	maxJUnitBody    = 64 << 10 // per failure, error, skipped or system-out element
	maxJUnitMessage = 1 << 10  // message attributes are one line
	maxJUnitName    = 512      // testcase names
	groupWorstCases = 5        // failing cases listed in a template's system-out
)

// JUnit failure and error types of threshold and verdict testcases. Case
// errors use the call error's type (schema.ErrTimeout, schema.ErrHTTP…).
const (
	junitAssertionFailed = "AssertionFailed"
	junitThresholdNotMet = "ThresholdNotMet"
	junitThresholdError  = "ThresholdError"
	junitVerdictFailed   = "VerdictFailed"
)

// jcase is one <testcase> before encoding.
type jcase struct {
	classname, name string
	file            string
	line            int
	time            float64
	// kind is "", "failure", "error" or "skipped".
	kind          string
	typ, message  string
	body          string
	out           string
	failingSource bool // a failing or erroring case (for MaxFailures)
	// repeat places the testcase of one repetition under --repeat
	// (junit_repeat.go joins a script's repetitions into one testcase);
	// extras are the rerun and flaky elements of a joined testcase.
	repeat *jrepeat
	extras []jextra
}

// JUnit writes the report as JUnit XML: one flat <testsuites> holding one
// <testsuite> with the metrics as <properties>. A <failure> or <error>
// appears exactly when the verdict is fail, so CI turns red when, and only
// when, the release gates do (SPEC §9):
//
//   - a suite with thresholds has one testcase per threshold (a missed gate
//     is a ThresholdNotMet failure, a gate that could not be evaluated a
//     ThresholdError error; warn-severity thresholds never fail) and one
//     testcase per template, dataset or conversation summarising its cases;
//   - a suite without thresholds has one testcase per case, with one
//     AssertionFailed failure listing every failed expectation, or an
//     error typed by the call error (Timeout, HTTPError, InvalidJSON…).
//
// If the verdict is fail for a reason no testcase carries (the error
// budget, say), a "verdict" testcase carries it. If it is pass, nothing
// is red: errored calls the budget allowed become <skipped>.
func JUnit(w io.Writer, r *schema.Report, o Options) error {
	if r == nil {
		return errNilReport
	}
	cases, omitted := junitCases(r, o)

	tests, failures, errs, skipped := countJCases(cases)

	x := newXMLWriter()
	x.header()
	x.start("testsuites",
		attr("name", toolName(r)+" run"),
		attr("tests", strconv.Itoa(tests)),
		attr("failures", strconv.Itoa(failures)),
		attr("errors", strconv.Itoa(errs)),
		attr("time", junitSeconds(r.Run.Seconds)))
	suiteAttrs := []xml.Attr{
		attr("name", suiteName(r)),
		attr("tests", strconv.Itoa(tests)),
		attr("failures", strconv.Itoa(failures)),
		attr("errors", strconv.Itoa(errs)),
		attr("skipped", strconv.Itoa(skipped)),
		attr("time", junitSeconds(r.Run.Seconds)),
	}
	if !r.Run.Started.IsZero() {
		suiteAttrs = append(suiteAttrs, attr("timestamp", r.Run.Started.UTC().Format("2006-01-02T15:04:05Z")))
	}
	suiteAttrs = append(suiteAttrs, attr("id", "0"))
	if len(r.Suite.Files) == 1 {
		suiteAttrs = append(suiteAttrs, attr("file", r.Suite.Files[0]))
	}
	x.start("testsuite", suiteAttrs...)

	x.start("properties")
	for _, p := range junitProperties(r) {
		x.empty("property", attr("name", p.name), attr("value", p.value))
	}
	x.end("properties")

	for i := range cases {
		x.testcase(&cases[i])
	}

	x.text("system-out", capBytes(suiteOut(r, o, omitted), maxJUnitBody))
	x.end("testsuite")
	x.end("testsuites")
	x.newline()
	if x.err != nil {
		return fmt.Errorf("junit: %w", x.err)
	}
	_, err := w.Write(x.buf.Bytes())
	return err
}

// countJCases counts testcases by kind for the suite's attributes.
func countJCases(cases []jcase) (tests, failures, errs, skipped int) {
	for _, c := range cases {
		tests++
		switch c.kind {
		case "failure":
			failures++
		case "error":
			errs++
		case "skipped":
			skipped++
		}
	}
	return tests, failures, errs, skipped
}

// testcase writes one testcase element.
func (x *xmlWriter) testcase(c *jcase) {
	attrs := []xml.Attr{attr("name", capLine(oneLine(c.name), maxJUnitName)), attr("classname", c.classname)}
	if f := oneLine(c.file); f != "" {
		attrs = append(attrs, attr("file", f))
		if c.line > 0 {
			attrs = append(attrs, attr("line", strconv.Itoa(c.line)))
		}
	}
	attrs = append(attrs, attr("time", junitSeconds(c.time)))
	if c.kind == "" && c.out == "" && len(c.extras) == 0 {
		x.empty("testcase", attrs...)
		return
	}
	x.start("testcase", attrs...)
	x.resultElements(c)
	if c.out != "" {
		x.text("system-out", capBytes(clean(c.out), maxJUnitBody))
	}
	x.end("testcase")
}

// resultOrder is the order of a testcase's result elements in Maven
// Surefire's report schema (surefire-test-report-3.0.xsd): the
// testcase's failure, skipped or error, each with the rerun and flaky
// elements of its kind.
var resultOrder = [...]string{"failure", "rerunFailure", "flakyFailure", "skipped", "error", "rerunError", "flakyError"}

// resultElements writes the testcase's failure, error or skipped element
// and its rerun and flaky elements (a script run with --repeat).
func (x *xmlWriter) resultElements(c *jcase) {
	for _, name := range resultOrder {
		if c.kind == name {
			ka := []xml.Attr{}
			if c.typ != "" {
				ka = append(ka, attr("type", c.typ))
			}
			ka = append(ka, attr("message", capLine(oneLine(c.message), maxJUnitMessage)))
			x.text(c.kind, capBytes(clean(c.body), maxJUnitBody), ka...)
		}
		for _, e := range c.extras {
			if e.kind == name {
				x.start(e.kind, attr("type", e.typ), attr("message", capLine(oneLine(e.message), maxJUnitMessage)))
				x.text("stackTrace", capBytes(clean(e.stackTrace), maxJUnitExtraBody))
				x.end(e.kind)
			}
		}
	}
}

// suiteOut is the suite's system-out: the verdict, its reasons, how many
// failing cases the cap left out, and the warnings.
func suiteOut(r *schema.Report, o Options, omitted int) string {
	out := []string{verdictWord(r) + "  " + headline(r)}
	for _, s := range reasons(r) {
		out = append(out, "  - "+s)
	}
	if omitted > 0 {
		out = append(out, fmt.Sprintf("%d more failing %s not listed (failure cap %d); the JSON report has them all",
			omitted, plural(omitted, "case", "cases"), o.MaxFailures))
	}
	out = append(out, repeatLines(r)...)
	for _, w := range r.Warnings {
		out = append(out, "warning: "+oneLine(w))
	}
	return strings.Join(out, "\n")
}

// junitCases builds the testcases in a stable order: thresholds in report
// order, then groups in report order, then cases in report order (worst
// first). It returns how many failing cases the MaxFailures cap left out.
func junitCases(r *schema.Report, o Options) ([]jcase, int) {
	suite := suiteName(r)
	red := !verdictPass(r)
	var cases []jcase
	withThresholds := len(r.Thresholds) > 0

	if withThresholds {
		for _, t := range r.Thresholds {
			cases = append(cases, thresholdCase(suite, t))
		}
		for _, g := range r.Groups {
			cases = append(cases, groupCase(r, suite, g))
		}
	}
	if !withThresholds || o.JUnitCases {
		cases = append(cases, joinRepeats(caseTestcases(r, suite, withThresholds, red))...)
	}

	// The cap applies to failing case testcases only; thresholds, groups
	// and passing cases are always listed.
	omitted := 0
	if limit := o.failureCap(0); limit > 0 {
		kept := cases[:0]
		n := 0
		for _, c := range cases {
			if c.failingSource {
				n++
				if n > limit {
					omitted++
					continue
				}
			}
			kept = append(kept, c)
		}
		cases = kept
	}

	// A JUnit failure must mean what the verdict means. When the verdict
	// passes, nothing is red: a report that still carries a failure (an
	// error-severity threshold that failed while the verdict passed cannot
	// come from nlutest, but the renderer does not trust that) is kept as
	// text. When it fails and no testcase says why (the error budget was
	// exceeded, the run was interrupted), a "verdict" testcase does.
	anyRed := false
	for i := range cases {
		c := &cases[i]
		if c.kind != "failure" && c.kind != "error" {
			continue
		}
		if red {
			anyRed = true
			continue
		}
		note := fmt.Sprintf("%s %s (not counted: the verdict is pass): %s", c.kind, c.typ, oneLine(c.message))
		c.out = strings.TrimSpace(note + "\n" + c.body + "\n" + c.out)
		c.kind, c.typ, c.message, c.body = "", "", "", ""
		c.extras = withoutReruns(c.extras)
	}
	if red && !anyRed {
		rs := reasons(r)
		msg := "the verdict is fail"
		if len(rs) > 0 {
			msg = rs[0]
		}
		body := msg
		if len(rs) > 1 {
			body = strings.Join(rs, "\n")
		}
		cases = append(cases, jcase{
			classname: suite, name: "verdict", kind: "failure", typ: junitVerdictFailed,
			message: msg, body: body,
		})
	}
	return cases, omitted
}

// thresholdCase is the testcase of one threshold block.
func thresholdCase(suite string, t schema.ThresholdResult) jcase {
	c := jcase{
		classname: suite,
		name:      "threshold " + oneLine(t.Name) + ": " + oneLine(t.Condition),
		file:      t.File,
		line:      t.Line,
	}
	var detail []string
	detail = append(detail, observedSentence(t))
	if m := oneLine(t.Message); m != "" {
		detail = append(detail, "message: "+m)
	}
	if t.Error != "" {
		detail = append(detail, "error: "+oneLine(t.Error))
	}
	if loc := location(t.File, t.Line); loc != "" {
		detail = append(detail, "at "+loc)
	}
	body := strings.Join(detail, "\n")
	switch thresholdStatus(t) {
	case statusPass:
		c.out = body
	case statusFail:
		c.kind, c.typ, c.message, c.body = "failure", junitThresholdNotMet, observedSentence(t), body
	case statusError:
		msg := oneLine(t.Error)
		if msg == "" {
			msg = "the threshold could not be evaluated"
		}
		c.kind, c.typ, c.message, c.body = "error", junitThresholdError, msg, body
	case statusWarn:
		// A warn-severity threshold never decides the verdict, so it is
		// never a failure: it is reported as text.
		what := "not met"
		if t.Outcome == schema.Error {
			what = "could not be evaluated"
		}
		c.out = "warning: threshold of severity warn " + what + "\n" + body
	default:
		c.kind, c.message = "skipped", "threshold not evaluated ("+t.Outcome.String()+")"
		c.body = body
	}
	return c
}

// groupCase is the testcase of one template, dataset or conversation in a
// suite with thresholds. It is never a failure: the gates decide.
func groupCase(r *schema.Report, suite string, g schema.Group) jcase {
	c := jcase{
		classname: suite,
		name:      groupKind(g) + " " + oneLine(g.Name),
		file:      g.File,
		line:      g.Line,
		time:      g.Seconds,
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d passed, %d failed, %d errored of %d %s (worst outcome: %s)", g.Passed, g.Failed, g.Errored,
		g.Total, plural(g.Total, "case", "cases"), g.Outcome)
	if r.Metrics != nil {
		if n := r.Metrics.Template[g.Name]; n != nil {
			b.WriteString("; accuracy " + fmtRatio(n.Accuracy))
		}
	}
	if g.Unreviewed {
		b.WriteString("\nexpectations are drafts (reviewed = false)")
	}
	var worst []schema.CaseReport
	total := 0
	for _, fc := range failingCases(r) {
		if fc.Template != g.Name {
			continue
		}
		total++
		if len(worst) < groupWorstCases {
			worst = append(worst, *fc)
		}
	}
	if len(worst) > 0 {
		b.WriteString("\nworst failures:")
		for _, fc := range worst {
			fmt.Fprintf(&b, "\n- %s %s [%s]: %s", fc.Outcome, oneLine(fc.Text), oneLine(fc.ID), caseSummary(fc))
		}
		if total > len(worst) {
			fmt.Fprintf(&b, "\n… and %d more", total-len(worst))
		}
	}
	if g.Kind == "conversation" {
		writeGroupTranscripts(&b, r, g.Name)
	}
	c.out = b.String()
	return c
}

// caseTestcases are the testcases of the cases: one per single case, one
// per conversation.
func caseTestcases(r *schema.Report, suite string, withThresholds, red bool) []jcase {
	var cases []jcase
	for c := range r.ListedCases() {
		if c.Turn == 0 {
			cases = append(cases, caseTestcase(suite, *c, withThresholds, red))
		}
	}
	for _, t := range transcripts(r) {
		cases = append(cases, conversationTestcase(suite, t, withThresholds, red))
	}
	return cases
}

// writeGroupTranscripts adds the transcripts of a conversation block's
// first failed conversations to its group testcase's output.
func writeGroupTranscripts(b *strings.Builder, r *schema.Report, source string) {
	n := 0
	for _, t := range failedTranscripts(r) {
		if t.Source != source {
			continue
		}
		if n++; n > groupWorstCases {
			b.WriteString("\n… and more failed conversations")
			return
		}
		b.WriteString("\n\n" + strings.Join(t.Lines(), "\n"))
	}
}

// conversationTestcase is the testcase of one conversation: it fails when
// a turn failed or was not run, and its output is the transcript. As for
// cases, in a suite with thresholds it is informational.
func conversationTestcase(suite string, t *Transcript, withThresholds, red bool) jcase {
	j := jcase{classname: suite + "." + oneLine(t.Source), name: capLine(t.Name(), maxJUnitName), file: t.File, line: t.Line}
	transcript := strings.Join(t.Lines(), "\n")
	if t.Repeat > 0 {
		j.repeat = transcriptRepetition(t, transcript)
	}
	if t.Outcome == schema.Pass {
		return j
	}
	j.failingSource = true
	j.out = transcript
	if withThresholds {
		j.out = strings.ToUpper(t.Outcome.String()) + " (informational: the thresholds decide the verdict): " + t.firstFailure() + "\n" + transcript
		return j
	}
	switch {
	case t.Outcome == schema.Fail:
		j.kind, j.typ, j.message, j.body = "failure", junitAssertionFailed, t.firstFailure(), transcript
	case red:
		j.kind, j.typ, j.message, j.body = "error", errTypeOf(t), t.firstFailure(), transcript
	default:
		j.kind, j.typ, j.message, j.body = "skipped", errTypeOf(t), t.firstFailure()+" (within the target's error budget)", transcript
	}
	return j
}

// errTypeOf is the error type of a conversation's errored turn.
func errTypeOf(t *Transcript) string {
	for _, tt := range t.Turns {
		if tt.Error != nil && oneLine(tt.Error.Type) != "" {
			return oneLine(tt.Error.Type)
		}
	}
	return schema.ErrEvaluation
}

// caseTestcase is the testcase of one case.
//
// In a suite without thresholds every case must pass, so a failed case is a
// <failure> and an errored call an <error> (or <skipped> when the verdict
// passed because the error budget allowed it).
//
// In a suite with thresholds (--junit-cases) the case testcases are
// informational: the thresholds decide the verdict, and single utterances
// failing is normal for NLU. Their failures are written as <system-out>
// text, never as <failure> or <error>, whatever the verdict, so a case's
// JUnit status does not flip with the gates and CI never turns red on a
// case when the verdict passes.
func caseTestcase(suite string, c schema.CaseReport, withThresholds, red bool) jcase {
	tpl := oneLine(c.Template)
	class := suite
	if tpl != "" {
		class = suite + "." + tpl
	}
	name := strings.TrimSpace(capLine(oneLine(c.Text), maxJUnitName-len(c.ID)-3))
	if id := oneLine(c.ID); id != "" {
		name = strings.TrimSpace(name + " [" + id + "]")
	}
	if name == "" {
		name = "(empty utterance)"
	}
	j := jcase{classname: class, name: name, file: c.File, line: c.Line, time: c.LatencyMS / 1000}
	if math.IsNaN(j.time) {
		j.time = 0
	}
	if c.Repeat > 0 {
		j.repeat = caseRepetition(c)
	}
	switch c.Outcome {
	case schema.Pass:
		return j
	case schema.Skip, schema.Pending:
		j.kind, j.message = "skipped", "case "+c.Outcome.String()
		return j
	}
	j.failingSource = true
	detail := caseDetail(c)
	if withThresholds {
		j.out = strings.ToUpper(c.Outcome.String()) + " (informational: the thresholds decide the verdict): " +
			caseSummary(c) + "\n" + detail
		return j
	}
	if c.Outcome == schema.Fail {
		j.kind, j.typ, j.message, j.body = "failure", junitAssertionFailed, caseSummary(c), detail
		return j
	}
	typ := schema.ErrEvaluation
	if c.Error != nil && oneLine(c.Error.Type) != "" {
		typ = oneLine(c.Error.Type)
	}
	if !red {
		j.kind, j.typ = "skipped", typ
		j.message = caseSummary(c) + " (within the target's error budget)"
		j.body = detail
		return j
	}
	j.kind, j.typ, j.message, j.body = "error", typ, caseSummary(c), detail
	return j
}

// prop is one <property>.
type prop struct{ name, value string }

// junitProperties lists the run's identity and its main metrics under
// their metrics-tree addresses. Ratios without data are left out.
func junitProperties(r *schema.Report) []prop {
	var ps []prop
	add := func(name, value string) {
		if value != "" {
			ps = append(ps, prop{name, oneLine(value)})
		}
	}
	add("tool", toolName(r))
	add("version", r.Version)
	add("suite.dir", r.Suite.Dir)
	add("suite.schema", r.Suite.Schema)
	add("run.id", r.Run.ID)
	add("run.target", r.Run.Target)
	add("run.split", r.Run.Split)
	add("run.filter", r.Run.Filter)
	add("run.error_budget", fmtProp(r.Run.ErrorBudget))
	if r.Run.Interrupted {
		add("run.interrupted", "true")
	}
	if iv := r.Intervals; iv != nil {
		add("intervals.confidence", fmtProp(iv.Confidence))
		add("intervals.resamples", strconv.Itoa(iv.Resamples))
		add("intervals.seed", strconv.FormatUint(iv.Seed, 10))
	}
	add("verdict", r.Verdict.Outcome.String())
	add("verdict.by_thresholds", strconv.FormatBool(r.Verdict.ByThresholds))
	for _, t := range r.Thresholds {
		add("threshold."+oneLine(t.Name), t.Outcome.String())
	}
	return append(ps, metricProps(r.Descriptor(), r.Metrics)...)
}

// fmtProp prints a property value: at most six decimals, no exponent.
func fmtProp(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	f = math.Round(f*1e6) / 1e6
	if f == 0 {
		f = 0
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// metricProps flattens the metrics the descriptor t
// marks as JUnit properties: the whole run's case counts and rates, the
// accuracy of core, non-core, each split, level and scene, and each
// family's figures for the whole run (dimension precision / recall / F1,
// label accuracy and averages, latency percentiles…). Ratios without data
// are left out.
func metricProps(t *schema.Tree, m *schema.Metrics) []prop {
	root := t.ReadMetrics(m)
	if root == nil {
		return nil
	}
	const prefix = "metrics"
	var ps []prop
	for _, f := range t.Families {
		ps = objProps(ps, root, prefix, f.Props, nil)
	}
	// the groups' nodes: single ones, then maps
	for _, keyed := range []bool{false, true} {
		for _, c := range root.Children {
			if c.Group && c.Sub.Keyed == keyed {
				ps = childProps(ps, c, prefix, false)
			}
		}
	}
	for _, c := range root.Children {
		if !c.Group {
			ps = childProps(ps, c, prefix, true)
		}
	}
	return ps
}

// childProps adds the properties of a subtree: its Props of the object or
// of each entry, and (deep) those of the subtrees below.
func childProps(ps []prop, c schema.Child, prefix string, deep bool) []prop {
	p := prefix + "." + c.Sub.Name
	if c.Obj != nil {
		return objTreeProps(ps, c.Obj, p, c.Sub, deep)
	}
	for i, k := range c.Keys {
		ps = objTreeProps(ps, c.Entries[i], metricKey(p, oneLine(k)), c.Sub, deep)
	}
	return ps
}

func objTreeProps(ps []prop, o *schema.Obj, p string, s *schema.Sub, deep bool) []prop {
	ps = objProps(ps, o, p, s.Props, s.PropWhen)
	if deep {
		for _, c := range o.Children {
			if len(c.Sub.Props) > 0 {
				ps = childProps(ps, c, p, deep)
			}
		}
	}
	return ps
}

// objProps adds the metrics of o named in names that have a value; a
// metric named in when is added only when the count it names is non-zero.
func objProps(ps []prop, o *schema.Obj, p string, names []string, when map[string]string) []prop {
	for _, name := range names {
		if gate, ok := when[name]; ok && o.Count(gate) == 0 {
			continue
		}
		for _, mt := range o.Metrics {
			if mt.Name == name && mt.Value != nil {
				ps = append(ps, prop{p + "." + name, fmtProp(*mt.Value)})
				if mt.CILow != nil && mt.CIHigh != nil {
					// The interval's bounds under the names a threshold
					// reads them by.
					ps = append(ps, prop{p + "." + name + ".ci_low", fmtProp(*mt.CILow)}, prop{p + "." + name + ".ci_high", fmtProp(*mt.CIHigh)})
				}
			}
		}
	}
	return ps
}

// xmlWriter writes XML through encoding/xml's token encoder, which escapes
// every attribute and text node, with its own indentation so text nodes
// keep their line breaks as written (the encoder's Indent would not touch
// them, but writing the layout by hand keeps it predictable). Every string
// reaching it has been cleaned of ANSI and XML-illegal characters; no CDATA
// is used (encoding/xml writes CDATA content raw).
type xmlWriter struct {
	buf   bytes.Buffer
	enc   *xml.Encoder
	depth int
	err   error
}

func newXMLWriter() *xmlWriter {
	x := &xmlWriter{}
	x.enc = xml.NewEncoder(&x.buf)
	return x
}

func attr(name, value string) xml.Attr {
	return xml.Attr{Name: xml.Name{Local: name}, Value: oneLine(value)}
}

func (x *xmlWriter) token(t xml.Token) {
	if x.err == nil {
		x.err = x.enc.EncodeToken(t)
	}
}

func (x *xmlWriter) flush() {
	if x.err == nil {
		x.err = x.enc.Flush()
	}
}

func (x *xmlWriter) header() {
	x.token(xml.ProcInst{Target: "xml", Inst: []byte(`version="1.0" encoding="UTF-8"`)})
}

func (x *xmlWriter) indent() {
	x.token(xml.CharData("\n" + strings.Repeat("  ", x.depth)))
}

func (x *xmlWriter) newline() {
	x.token(xml.CharData("\n"))
	x.flush()
}

func (x *xmlWriter) start(name string, attrs ...xml.Attr) {
	x.indent()
	x.token(xml.StartElement{Name: xml.Name{Local: name}, Attr: attrs})
	x.depth++
}

func (x *xmlWriter) end(name string) {
	x.depth--
	x.indent()
	x.token(xml.EndElement{Name: xml.Name{Local: name}})
}

// empty writes <name attrs></name> on one line.
func (x *xmlWriter) empty(name string, attrs ...xml.Attr) {
	x.indent()
	x.token(xml.StartElement{Name: xml.Name{Local: name}, Attr: attrs})
	x.token(xml.EndElement{Name: xml.Name{Local: name}})
}

// text writes <name attrs>text</name>; text is written as is (escaped).
func (x *xmlWriter) text(name, text string, attrs ...xml.Attr) {
	x.indent()
	x.token(xml.StartElement{Name: xml.Name{Local: name}, Attr: attrs})
	if text != "" {
		x.token(xml.CharData(text))
	}
	x.token(xml.EndElement{Name: xml.Name{Local: name}})
}
