package assert

import (
	"fmt"
	"math"
	"strings"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/reply"
)

// Reply checks (SPEC §14.1): a case's reply block, checked on its reply
// text as expectations of the case. Each failing check is a failure of
// kind "reply" naming the check, what it looked for and the reply:
// `reply: contains "后天": not found in "好的，去上海。请问哪天出发？"`.
// The block's literals are folded and its regex compiled at load
// (spec/reply); a case folds its reply once per block.

// ReplyFailureKind is the Failure.Kind of a failed reply check.
const ReplyFailureKind = "reply"

// replyChecks checks r's reply against its source's reply block for r.
func (e *Evaluator) replyChecks(r *schema.Result, sc *sourceChecks) {
	if sc == nil || sc.reply == nil {
		return
	}
	if rc := sc.reply(&r.Case); rc != nil {
		e.CheckReply(r, rc)
	}
}

// CheckReply checks r's reply against the reply block rc, adding a
// failure to r.Failures for each check that does not hold. Source kinds
// with reply checks of their own (a scenario's each_turn) call it.
func (e *Evaluator) CheckReply(r *schema.Result, rc *reply.Check) {
	got := r.Reply
	if got == "" {
		got = schema.ReplyOf(r.Response)
	}
	ic := rc.IgnoreCase
	folded := reply.Fold(got, ic)
	slots := r.Slots
	for i := range rc.Contains {
		t := &rc.Contains[i]
		if !strings.Contains(folded, t.Folded(slots, ic)) {
			e.replyFail(r, rc, reply.Contains, fmt.Sprintf("contains %q: not found in %q", t.Shown(slots), got))
		}
	}
	if len(rc.ContainsAny) > 0 && !anyContained(folded, rc.ContainsAny, slots, ic) {
		e.replyFail(r, rc, reply.ContainsAny, fmt.Sprintf("contains_any %s: none found in %q", shownList(rc.ContainsAny, slots), got))
	}
	for i := range rc.NotContains {
		t := &rc.NotContains[i]
		if strings.Contains(folded, t.Folded(slots, ic)) {
			e.replyFail(r, rc, reply.NotContains, fmt.Sprintf("not_contains %q: found in %q", t.Shown(slots), got))
		}
	}
	if rc.Matches != nil && !replyMatches(rc, got, folded) {
		e.replyFail(r, rc, reply.Matches, fmt.Sprintf("matches %q: no match in %q", rc.MatchesText, got))
	}
	if len(rc.Equals) > 0 && !anyEqual(folded, rc.Equals, slots, ic) {
		want := shownList(rc.Equals, slots)
		if rc.EqualsName == reply.Equals {
			want = fmt.Sprintf("%q", rc.Equals[0].Shown(slots))
		}
		e.replyFail(r, rc, rc.EqualsName, fmt.Sprintf("%s %s: got %q", rc.EqualsName, want, got))
	}
	if rc.Similar != nil {
		e.similar(r, rc, got)
	}
}

// replyFail adds the failure of check name of rc, located at its
// attribute.
func (e *Evaluator) replyFail(r *schema.Result, rc *reply.Check, name, msg string) {
	rng := rc.Lines[name]
	r.Failures = append(r.Failures, schema.Failure{Kind: ReplyFailureKind, Message: e.suite.Redactor().String(msg),
		File: rng.Filename, Line: rng.Start.Line})
}

func anyContained(folded string, ts []reply.Text, slots map[string]schema.Slot, ic bool) bool {
	for i := range ts {
		if strings.Contains(folded, ts[i].Folded(slots, ic)) {
			return true
		}
	}
	return false
}

// anyEqual: the reply is one of ts, white space around either ignored.
func anyEqual(folded string, ts []reply.Text, slots map[string]schema.Slot, ic bool) bool {
	got := strings.TrimSpace(folded)
	for i := range ts {
		if got == strings.TrimSpace(ts[i].Folded(slots, ic)) {
			return true
		}
	}
	return false
}

// replyMatches runs the regex on the reply in NFC and, failing that, on
// its folded form (full-width forms as ASCII): a pattern written with
// either form of a character matches.
func replyMatches(rc *reply.Check, got, folded string) bool {
	nfc := reply.NFC(got)
	return rc.Matches.MatchString(nfc) || (folded != nfc && rc.Matches.MatchString(folded))
}

// shownList renders texts as ["a", "b"].
func shownList(ts []reply.Text, slots map[string]schema.Slot) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range ts {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", ts[i].Shown(slots))
	}
	b.WriteByte(']')
	return b.String()
}

// similar checks the reply's similarity to the block's references (or
// the case's, for a dataset block without to): the best score over them
// must reach the minimum.
func (e *Evaluator) similar(r *schema.Result, rc *reply.Check, got string) {
	sim := rc.Similar
	refs := r.References
	if len(sim.To) > 0 {
		refs = make([]string, len(sim.To))
		for i := range sim.To {
			refs[i] = sim.To[i].Shown(r.Slots)
		}
	}
	if len(refs) == 0 {
		e.replyFail(r, rc, reply.SimilarName, fmt.Sprintf("similar %s: the case has no references to compare %q with", sim.Metric, got))
		return
	}
	score := ReplySimilarity(sim.Metric, got, refs, TextMetricsOf(e.suite))
	if score >= sim.Min {
		return
	}
	e.replyFail(r, rc, reply.SimilarName, fmt.Sprintf("similar %s %.4f is below min %g: %q against %s", sim.Metric, score, sim.Min, got, quotedList(refs)))
}

func quotedList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", clipText(x))
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// ReplySimilarity is the reply's score against its references (the best
// over them) by metric: "rougeL" (ROUGE-L F), "f1" (SQuAD token F1) or
// "bleu" (sentence BLEU, 0–1), tokenised and smoothed as the text_metrics
// block says, Chinese when a reference holds a CJK character.
func ReplySimilarity(metric, reply string, refs []string, opts TextMetrics) float64 {
	zh := opts.Tokenize == metrics.TokZh || opts.Tokenize == metrics.TokChr
	for _, ref := range refs {
		zh = zh || metrics.HasCJK(ref)
	}
	switch metric {
	case "f1":
		n := metrics.NormSQuAD
		if zh {
			n = metrics.NormMLQA
		}
		return metrics.TokenF1(n, reply, refs)
	case "bleu":
		tok := opts.Tokenize
		if tok == "" {
			tok = metrics.Tok13a
			if zh {
				tok = metrics.TokZh
			}
		}
		smooth := opts.Smooth
		if smooth == "" {
			smooth = metrics.SmoothExp
		}
		return metrics.BLEUScore(segmentBLEU(tok, reply, refs), smooth, opts.SmoothValue) / 100
	}
	tokens := metrics.RougeTokens
	if zh {
		tokens = metrics.RougeTokensZh
	}
	pred := tokens(reply)
	best := 0.0
	for _, ref := range refs {
		best = math.Max(best, metrics.RougeL(tokens(ref), pred).F)
	}
	return best
}
