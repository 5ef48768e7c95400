package assert

import (
	"math/bits"

	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Reading a scenario turn for metrics.task (family_task.go): what the
// turn showed of the bot's offer, of its answers to the user's requests
// and of its booking, read from the recorded turn through the task
// block's value sources (spec.ValueSource: the response, the dialogue
// state, the turn's tool calls, the final state, the reply), so `eval`
// reads the same from results.jsonl. A source whose record is missing
// or is not JSON reads nothing.

// TaskTurn is what one scenario turn showed of its task.
type TaskTurn struct {
	// Offered has bit i set when offers entry i read a value on the turn;
	// OfferMet, for an inform entry, when that value equals the goal's.
	Offered, OfferMet uint64
	// Booked: the turn booked — its reference read a value, or, without a
	// reference, a booked entry did. BookMet counts the booked entries
	// whose values equal the goal's (when Booked).
	Booked  bool
	BookMet int
}

// ReadTaskTurn reads turn r of a scenario whose task block is t.
func ReadTaskTurn(t *spec.TaskSpec, r *schema.Result) TaskTurn {
	var out TaskTurn
	tr := &taskReader{r: r}
	for i := range t.Offers {
		v := &t.Offers[i]
		got, ok := tr.value(&v.From)
		if !ok {
			continue
		}
		out.Offered |= 1 << i
		if v.Role == spec.TaskInform && sameValue(t.Goal(&r.Case, v.Name), got) {
			out.OfferMet |= 1 << i
		}
	}
	if len(t.Booked) == 0 {
		return out
	}
	met, found := 0, false
	for i := range t.Booked {
		v := &t.Booked[i]
		got, ok := tr.value(&v.From)
		if !ok {
			continue
		}
		found = true
		if sameValue(t.Goal(&r.Case, v.Name), got) {
			met++
		}
	}
	if t.Reference != nil {
		_, out.Booked = tr.value(t.Reference)
	} else {
		out.Booked = found
	}
	if out.Booked {
		out.BookMet = met
	}
	return out
}

// sameValue reports whether a value read equals the goal's value: a
// string as expectations compare strings (after NFC), a number or bool
// by its JSON text ("2" is the goal of a people slot read as 2).
func sameValue(goal string, got any) bool {
	switch got.(type) {
	case string:
		return Equal(goal, got)
	case bool, int64, float64:
		return jsondoc.CanonicalJSON(got) == goal
	}
	if _, ok := number(got); ok {
		return jsondoc.CanonicalJSON(got) == goal
	}
	return false
}

// taskReader reads value sources on one result, parsing each record it
// needs once.
type taskReader struct {
	r                      *schema.Result
	resp, state, final     any
	respOK, stateOK, finOK bool
	read                   uint8 // which of the three were parsed (bits)
}

// value is the first value src reads on the turn that is not empty
// (jsondoc.Empty), and whether there is one.
func (tr *taskReader) value(src *spec.ValueSource) (any, bool) {
	r := tr.r
	switch src.Kind {
	case spec.FromReply:
		reply := r.Reply
		if reply == "" {
			reply = schema.ReplyOf(r.Response)
		}
		m := src.Re.FindStringSubmatch(reply)
		if m == nil {
			return nil, false
		}
		v := m[0]
		for _, g := range m[1:] {
			if g != "" {
				v = g
				break
			}
		}
		return v, v != ""
	case spec.FromTool:
		for k := len(r.ToolCalls) - 1; k >= 0; k-- {
			c := &r.ToolCalls[k]
			if c.Name != src.Tool {
				continue
			}
			args, err := c.ToolArgs()
			if err != nil {
				continue
			}
			if v, ok := firstValue(src, parseJSON(args)); ok {
				return v, true
			}
		}
		return nil, false
	case spec.FromState:
		if tr.read&2 == 0 {
			tr.read |= 2
			tr.state, tr.stateOK = parseRecord(r.State)
		}
		if !tr.stateOK {
			return nil, false
		}
		return firstValue(src, tr.state)
	case spec.FromFinal:
		if tr.read&4 == 0 {
			tr.read |= 4
			if fs := r.FinalState; fs != nil && fs.Error == nil {
				tr.final, tr.finOK = parseRecord(fs.State)
			}
		}
		if !tr.finOK {
			return nil, false
		}
		return firstValue(src, tr.final)
	}
	if tr.read&1 == 0 {
		tr.read |= 1
		if r.Error == nil {
			tr.resp, tr.respOK = parseRecord(r.Response)
		}
	}
	if !tr.respOK {
		return nil, false
	}
	return firstValue(src, tr.resp)
}

// parseRecord parses a recorded JSON value; false when there is none or
// it is not JSON.
func parseRecord(b []byte) (any, bool) {
	if len(b) == 0 {
		return nil, false
	}
	var d jsondoc.Doc
	if err := d.Parse(b); err != nil {
		return nil, false
	}
	return d.Value(d.Root()), true
}

func parseJSON(b []byte) any {
	v, _ := parseRecord(b)
	return v
}

// firstValue is the first value src's path selects in data (document
// order) that is not empty.
func firstValue(src *spec.ValueSource, data any) (any, bool) {
	if data == nil {
		return nil, false
	}
	got, ok := matches(src.Path, data, multiNode(src.Path))
	if !ok {
		return nil, false
	}
	for _, v := range got {
		if !jsondoc.Empty(v) {
			return v, true
		}
	}
	return nil, false
}

// ones counts the bits of x.
func ones(x uint64) int { return bits.OnesCount64(x) }
