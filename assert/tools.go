package assert

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/tools"
)

// Tool-call checks (issue 37): a case's tools block over the turn's tool
// calls (called, not_called, sequence and mode, args), a conversation's
// or scenario's own block over the calls of all its turns (on the turn
// that ends it: its earlier turns' names are recorded there,
// schema.Result.EarlierTools), and a final_state block's expectations on
// the state read after the last turn. Failures are of kind "tools" and
// "final_state"; what was found is left in r.Tools for metrics.tools.

// Failure kinds of tool checks.
const (
	ToolsFailureKind      = "tools"
	FinalStateFailureKind = "final_state"
)

// toolChecks checks r's tool calls and final state against its source's
// tools blocks and its tool and final expectations.
func (e *Evaluator) toolChecks(r *schema.Result, sc *sourceChecks) {
	r.Tools = nil
	var tc, st *tools.Checks
	ends := r.Turn >= 1 && r.Turn == r.ScriptTurns
	if sc != nil {
		if sc.tools != nil {
			tc = sc.tools(&r.Case)
		}
		if ends {
			st = sc.scriptTools
		}
	}
	hasArgs, hasFinal := false, false
	for i := range r.Expect {
		p := r.Expect[i].Path
		hasArgs = hasArgs || strings.HasPrefix(p, tools.Prefix)
		hasFinal = hasFinal || strings.HasPrefix(p, tools.FinalPrefix)
	}
	if len(r.ToolCalls) == 0 && tc == nil && st == nil && !hasArgs && !(hasFinal && ends) {
		return
	}
	out := schema.NewToolOutcome()
	for i := range r.ToolCalls {
		c := &r.ToolCalls[i]
		toolCounts(out, c.Name).Calls++
		if len(c.Arguments) == 0 && c.ArgumentsText != "" {
			out.InvalidArgs++
		}
		if strings.HasPrefix(c.Error, schema.NoMockPrefix) {
			out.Unmocked++
		}
	}
	var buf [16]string
	names := schema.ToolNames(buf[:0], r.ToolCalls)
	if tc != nil {
		e.turnTools(r, tc, names, out)
	}
	if hasArgs {
		e.toolArgs(r, sc, out)
	}
	if st != nil {
		all := append(append(make([]string, 0, len(r.EarlierTools)+len(names)), r.EarlierTools...), names...)
		e.nameChecks(r, st, all, "over the conversation's calls", out)
	}
	if hasFinal && ends {
		e.finalChecks(r, sc, out)
	}
	r.Tools = out
}

// toolCounts returns out's counts of the tool name, adding them.
func toolCounts(out *schema.ToolOutcome, name string) *schema.ToolCounts {
	for i := range out.PerTool {
		if out.PerTool[i].Name == name {
			return &out.PerTool[i]
		}
	}
	out.PerTool = append(out.PerTool, schema.ToolCounts{Name: name})
	return &out.PerTool[len(out.PerTool)-1]
}

// count is how many times name is in names.
func count(names []string, name string) int {
	n := 0
	for _, x := range names {
		if x == name {
			n++
		}
	}
	return n
}

// firstAt reports whether names[i] is the first occurrence of its name.
func firstAt(names []string, i int) bool {
	for _, x := range names[:i] {
		if x == names[i] {
			return false
		}
	}
	return true
}

// turnTools checks a turn's tools block and, when it lists called,
// scores its calls: per tool, expected = times listed, correct = the
// calls matched to them.
func (e *Evaluator) turnTools(r *schema.Result, tc *tools.Checks, names []string, out *schema.ToolOutcome) {
	e.nameChecks(r, tc, names, "", out)
	if !tc.HasCalled {
		return
	}
	out.Scored = true
	for i, n := range tc.Called {
		if firstAt(tc.Called, i) {
			want, got := count(tc.Called, n), count(names, n)
			t := toolCounts(out, n)
			t.Expected += want
			t.Correct += min(want, got)
		}
	}
	for i, n := range names {
		if firstAt(names, i) {
			toolCounts(out, n).Scored += count(names, n)
		}
	}
}

// nameChecks checks called, not_called and sequence against names (the
// turn's calls, or the conversation's: over says so in messages).
func (e *Evaluator) nameChecks(r *schema.Result, tc *tools.Checks, names []string, over string, out *schema.ToolOutcome) {
	suffix := ""
	if over != "" {
		suffix = " " + over
	}
	for i, n := range tc.Called {
		if !firstAt(tc.Called, i) {
			continue
		}
		if want, got := count(tc.Called, n), count(names, n); got < want {
			e.toolFail(r, tc.CalledRange, fmt.Sprintf("called %q: %s%s (calls: %s)", n, timesText(got, want), suffix, schema.QuoteNames(names)))
		}
	}
	for i, n := range tc.NotCalled {
		if firstAt(tc.NotCalled, i) {
			if got := count(names, n); got > 0 {
				e.toolFail(r, tc.NotCalledRange, fmt.Sprintf("not_called %q: called %s%s (calls: %s)", n, times(got), suffix, schema.QuoteNames(names)))
			}
		}
	}
	if !tc.HasSequence {
		return
	}
	ok := SequenceMatches(tc.Mode, tc.Sequence, names)
	out.Sequences = append(out.Sequences, schema.SequenceOutcome{Mode: tc.Mode, Passed: ok})
	if !ok {
		e.toolFail(r, tc.SequenceRange, fmt.Sprintf("sequence %s %s: the calls%s were %s", tc.Mode, schema.QuoteNames(tc.Sequence), suffix, schema.QuoteNames(names)))
	}
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

func timesText(got, want int) string {
	if got == 0 {
		return "not called"
	}
	return fmt.Sprintf("called %s, expected at least %s", times(got), times(want))
}

// toolFail adds a failure of kind "tools" located at rng.
func (e *Evaluator) toolFail(r *schema.Result, rng hcl.Range, msg string) {
	r.Failures = append(r.Failures, schema.Failure{Kind: ToolsFailureKind, Message: e.suite.Redactor().String(msg), File: rng.Filename, Line: rng.Start.Line})
}

// SequenceMatches reports whether the calls (names, in order) match the
// expected sequence in mode (schema.Mode*):
//
//   - exact: the same names in the same order, nothing else;
//   - in_order: the expected names appear in the calls in order, other
//     calls before, between and after them allowed (a subsequence);
//   - any_order: the same names as often, in any order (equal multisets);
//   - subset: every call is expected (as often as the sequence lists its
//     name), some expected calls may be missing;
//   - superset: every expected call was made (as often as listed), other
//     calls allowed.
func SequenceMatches(mode string, want, got []string) bool {
	switch mode {
	case schema.ModeExact:
		if len(want) != len(got) {
			return false
		}
		for i := range want {
			if want[i] != got[i] {
				return false
			}
		}
		return true
	case schema.ModeInOrder:
		j := 0
		for _, n := range got {
			if j < len(want) && n == want[j] {
				j++
			}
		}
		return j == len(want)
	case schema.ModeAnyOrder:
		return len(want) == len(got) && within(got, want)
	case schema.ModeSubset:
		return within(got, want)
	case schema.ModeSuperset:
		return within(want, got)
	}
	return false
}

// within reports whether the multiset a is contained in the multiset b.
func within(a, b []string) bool {
	for i, n := range a {
		if firstAt(a, i) && count(a, n) > count(b, n) {
			return false
		}
	}
	return true
}

// toolArgs checks the case's args expectations ("tool:NAME:$.path"),
// grouped by tool: a tool's group holds when one of its calls meets
// every expectation of the group. The failures of a group that does not
// hold are those of the call that met the most (the first of equals).
func (e *Evaluator) toolArgs(r *schema.Result, sc *sourceChecks, out *schema.ToolOutcome) {
	var idxBuf [8]int
	var doneBuf [4]string
	idx := idxBuf[:0]   // the args expectations of the tool at hand
	done := doneBuf[:0] // the tools checked
	for i := range r.Expect {
		c, err := e.path(sc, i, r.Expect[i].Path)
		if err != nil || c.tool == "" || slices.Contains(done, c.tool) {
			continue
		}
		done = append(done, c.tool)
		idx = idx[:0]
		for j := i; j < len(r.Expect); j++ {
			if cj, err := e.path(sc, j, r.Expect[j].Path); err == nil && cj.tool == c.tool {
				idx = append(idx, j)
			}
		}
		e.toolGroup(r, sc, c.tool, idx, out)
	}
}

// toolGroup checks the args expectations idx of one tool.
func (e *Evaluator) toolGroup(r *schema.Result, sc *sourceChecks, tool string, idx []int, out *schema.ToolOutcome) {
	doc := e.docs.Get().(*jsondoc.Doc)
	defer e.docs.Put(doc)
	best, bestMet := -1, -1
	rs := &response{}
	for k := range r.ToolCalls {
		if r.ToolCalls[k].Name != tool {
			continue
		}
		err := parseArgs(rs, doc, &r.ToolCalls[k])
		met := 0
		for _, i := range idx {
			if e.argMet(r, sc, i, rs, err) {
				met++
			}
		}
		if met == len(idx) {
			t := toolCounts(out, tool)
			t.ArgsChecked++
			t.ArgsPassed++
			return
		}
		if met > bestMet {
			best, bestMet = k, met
		}
	}
	if best < 0 {
		x := &r.Expect[idx[0]]
		f := e.failure(sc, x, -1)
		f.Kind, f.Missing = ToolsFailureKind, true
		f.Message = fmt.Sprintf("args %q: the tool was not called (calls: %s)", tool, schema.QuoteNames(schema.ToolNames(nil, r.ToolCalls)))
		r.Failures = append(r.Failures, f)
		return
	}
	toolCounts(out, tool).ArgsChecked++
	call := &r.ToolCalls[best]
	err := parseArgs(rs, doc, call)
	for _, i := range idx {
		if !e.argMet(r, sc, i, rs, err) {
			r.Failures = append(r.Failures, e.argFailure(r, sc, i, rs, err, call))
		}
	}
}

// parseArgs parses a call's arguments into doc and resets rs to read
// them; the error says why they cannot be read.
func parseArgs(rs *response, doc *jsondoc.Doc, call *schema.ToolCall) error {
	*rs = response{doc: doc}
	args, err := call.ToolArgs()
	if err == nil {
		err = doc.Parse(args)
	}
	return err
}

// argMet reports whether args expectation i holds on one call's
// arguments (parsed in rs, or argErr saying why they cannot be read):
// simple paths compared in place on the tape, others on Go values.
func (e *Evaluator) argMet(r *schema.Result, sc *sourceChecks, i int, rs *response, argErr error) bool {
	if argErr != nil {
		return false
	}
	x := &r.Expect[i]
	c, err := e.path(sc, i, x.Path)
	if err != nil {
		return false
	}
	if c.mode == modeSimple {
		ref, found := rs.lookup(c)
		return found && equalDoc(x.Value, rs.doc, ref)
	}
	got, found := rs.find(c)
	if !found {
		return false
	}
	var actual any = got[0]
	if c.multi {
		actual = got
	}
	return Equal(x.Value, actual)
}

// argFailure is the failure of args expectation i on one call.
func (e *Evaluator) argFailure(r *schema.Result, sc *sourceChecks, i int, rs *response, argErr error, call *schema.ToolCall) schema.Failure {
	x := &r.Expect[i]
	c, _ := e.path(sc, i, x.Path)
	f := e.failure(sc, x, -1)
	f.Kind = ToolsFailureKind
	path := strings.TrimPrefix(x.Path, tools.Prefix+c.tool+":")
	shown := string(call.Arguments)
	if shown == "" {
		shown = fmt.Sprintf("%q", call.ArgumentsText)
	}
	var got []any
	found := false
	if argErr == nil {
		got, found = rs.find(c)
	}
	switch {
	case argErr != nil:
		f.Missing = true
		f.Message = fmt.Sprintf("args %q %s: expected %s, but %v: %s", c.tool, path, ShowJSON(x.Value), argErr, shown)
	case !found:
		f.Missing = true
		f.Message = fmt.Sprintf("args %q %s: expected %s, missing in the arguments %s", c.tool, path, ShowJSON(x.Value), shown)
	default:
		var actual any = got[0]
		if c.multi {
			actual = got
		}
		f.Actual = actual
		f.Message = fmt.Sprintf("args %q %s: expected %s, got %s in the arguments %s", c.tool, path, ShowJSON(x.Value), ShowJSON(actual), shown)
	}
	f.Message = e.suite.Redactor().String(f.Message)
	return f
}

// ShowJSON renders an expected or actual value briefly, as JSON.
func ShowJSON(v any) string {
	b, err := jsondoc.MarshalNoEscape(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// finalChecks checks the final-state expectations ("final:$.path") of
// the turn that ends a script against the state read after it.
func (e *Evaluator) finalChecks(r *schema.Result, sc *sourceChecks, out *schema.ToolOutcome) {
	out.FinalChecked, out.FinalPassed = true, true
	var doc any
	why := ""
	switch fs := r.FinalState; {
	case fs == nil:
		why = "no final state was read after the last turn"
	case fs.Error != nil:
		why = "the final state could not be read: " + fs.Error.Message
	default:
		var d jsondoc.Doc
		if err := d.Parse(fs.State); err != nil {
			why = fmt.Sprintf("the recorded final state is not JSON: %v", err)
		} else {
			doc = d.Value(d.Root())
		}
	}
	for i := range r.Expect {
		c, err := e.path(sc, i, r.Expect[i].Path)
		if err != nil || !c.final {
			continue
		}
		x := &r.Expect[i]
		f := e.failure(sc, x, -1)
		f.Kind = FinalStateFailureKind
		path := strings.TrimPrefix(x.Path, tools.FinalPrefix)
		got, found := []any(nil), false
		if why == "" {
			got, found = matches(c.x, doc, c.multi)
		}
		var actual any
		if found {
			actual = got[0]
			if c.multi {
				actual = got
			}
			if Equal(x.Value, actual) {
				continue
			}
		}
		out.FinalPassed = false
		switch {
		case why != "":
			f.Missing, f.Message = true, fmt.Sprintf("%s: expected %s, but %s", path, ShowJSON(x.Value), why)
		case !found:
			f.Missing, f.Message = true, fmt.Sprintf("%s: expected %s, selected nothing in the final state", path, ShowJSON(x.Value))
		default:
			f.Actual, f.Message = actual, fmt.Sprintf("%s: expected %s, got %s", path, ShowJSON(x.Value), ShowJSON(actual))
		}
		f.Message = e.suite.Redactor().String(f.Message)
		r.Failures = append(r.Failures, f)
	}
}
