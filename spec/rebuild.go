package spec

import (
	"github.com/nlutest/nlutest/schema"
)

// Rebuilder re-derives saved cases from the suite as it is now, so `nlutest
// eval` checks recorded responses against today's expectations, splits and
// levels (the IAO corpus-factory write-up's per-case lifecycle: edit an expectation, re-evaluate).
// Each case is rebuilt by its source (Source.Rebuild). It is safe for
// concurrent use.
type Rebuilder struct {
	bySource map[sourceKey]Source
}

type sourceKey struct{ kind, name string }

// NewRebuilder prepares a rebuilder for s.
func (s *Suite) NewRebuilder() *Rebuilder {
	rb := &Rebuilder{bySource: make(map[sourceKey]Source, len(s.CaseSources))}
	for _, src := range s.CaseSources {
		rb.bySource[sourceKey{src.Kind(), src.Name()}] = src
	}
	return rb
}

// Rebuild returns the case the suite now generates for the saved case. ok
// is false when its source is gone or no longer generates it; the caller
// then keeps the saved case.
func (rb *Rebuilder) Rebuild(saved *schema.Case) (c *schema.Case, ok bool) {
	kind, name := saved.SourceOf()
	src := rb.bySource[sourceKey{kind, name}]
	if src == nil {
		return nil, false
	}
	c, ok = src.Rebuild(Saved{Case: saved})
	if ok {
		keepRunFields(c, saved)
	}
	return c, ok
}

// keepRunFields copies the fields a run set on a case (its session,
// repetition and captures) from the record to the rebuilt case.
func keepRunFields(c, rec *schema.Case) {
	c.Conversation, c.Repeat, c.Captures, c.Reason = rec.Conversation, rec.Repeat, rec.Captures, rec.Reason
}

// RebuildRecord is Rebuild for a result record read by
// schema.Result.DecodeForEval: rec holds the case's source, id and text,
// and slots is the record's raw slots object, read without building a map.
func (rb *Rebuilder) RebuildRecord(rec *schema.Case, slots []byte) (c *schema.Case, ok bool) {
	return rb.RebuildRecordInto(nil, rec, slots)
}

// RebuildRecordInto is RebuildRecord building the case in dst where its
// source can (Saved.Into): the case returned may be dst, whose slot map
// and expectations are reused, so the caller keeps nothing of a rebuilt
// case past the next call with the same dst. Eval's replay rebuilds a
// million cases this way without allocating each one. dst must not be rec.
func (rb *Rebuilder) RebuildRecordInto(dst, rec *schema.Case, slots []byte) (c *schema.Case, ok bool) {
	kind, name := rec.SourceOf()
	src := rb.bySource[sourceKey{kind, name}]
	if src == nil {
		return nil, false
	}
	c, ok = src.Rebuild(Saved{ID: rec.ID, Text: rec.Text, Slots: slots, Script: rec.Script, Turn: rec.Turn, Into: dst})
	if ok && (rec.Repeat != 0 || rec.Conversation != "" || rec.Captures != nil) {
		keepRunFields(c, rec)
	}
	return c, ok
}
