package assert

import (
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// latencyFamily summarises the latency of calls that gave a response,
// overall and per input length bucket. Results answered from the response
// cache (--cache) are left out: their latency is an earlier call's, so a
// latency gate on them would measure nothing (the report says how many).
type latencyFamily struct{}

func (latencyFamily) Shape() *schema.Family  { return schema.LatencyFamily }
func (latencyFamily) NewAcc(*spec.Suite) Acc { return &latencyAcc{} }

type latencyAcc struct{ metrics.LatencyAcc }

func (l *latencyAcc) Add(o *Observation) {
	if o.Result.Error == nil && !o.Result.Cached {
		l.AddSample(o.Latency)
	}
}

func (l *latencyAcc) Merge(o Acc) { l.LatencyAcc.Merge(&o.(*latencyAcc).LatencyAcc) }

func (l *latencyAcc) Fill(n *schema.Node) { n.Latency = l.Result() }
