package assert

import (
	"math/rand/v2"
	"testing"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
)

// addEveryNode counts r in every node it belongs to, family by family, as
// Add did before cells: the reference the cells must match.
func addEveryNode(c *Collector, r *schema.Result, ev *Evaluation) {
	if r.Unreviewed && !c.IncludeUnreviewed {
		return
	}
	o := &Observation{Result: r, Eval: ev, Latency: metrics.NewSample(metrics.InputLength(r.Text), r.LatencyMS)}
	kind, name := r.SourceOf()
	for _, n := range c.nodesOf(r, kind, name) {
		n.add(o)
	}
}

// The metrics a collector gathers through cells (results counted once per
// node set, merged into the nodes when they are read) are byte for byte
// those of counting every result in every node. The results are the
// dimension reference test's generated ones (mutated IAO and Rasa-like
// responses with Chinese text, labels, typed items, case and leaf
// dimensions), spread over templates, splits, levels, scenes, core and
// unreviewed cases, errors, cached results and latencies that repeat or
// do not (beyond metrics.MaxCountedLatencies distinct values); the
// collector is read mid-way and holds at most a few cells, so cells are
// flushed into nodes that already hold results.
func TestCellsMatchNodes(t *testing.T) {
	defer func(n int) { maxCells = n }(maxCells)
	maxCells = 5
	suites := []*refSuite{
		loadRefSuite(t, "iao", refIAOSuite, refCorpusFactoryResponse, true, []string{"$..ont", "$..relName"}),
		loadRefSuite(t, "custom", refCustomSuite, refRasaResponse, false, []string{"$.intent_ranking[*].name", "$.entities[*].value"}),
	}
	n := 6000
	if testing.Short() || underRace {
		n = 1500
	}
	splits := [][]string{nil, {"冒烟"}, {"冒烟", "回归"}, {"回归"}}
	scenes := [][]string{nil, {"出行"}, {"出行", "机票"}, {"关系分析", "伴随分析", "酒店同宿"}, {"出行/机票"}}
	for k, rs := range suites {
		rnd := rand.New(rand.NewPCG(20261202, uint64(k)))
		cells, nodes := NewCollector(rs.s, nil), NewCollector(rs.s, nil)
		for i := range n {
			g := &refGen{r: rnd, iao: rs.iao}
			r := g.result(rs, i)
			r.Level = []string{"", "S1", "S2"}[rnd.IntN(3)]
			r.Split, r.Scene = splits[rnd.IntN(len(splits))], scenes[rnd.IntN(len(scenes))]
			r.Core, r.Unreviewed, r.Cached = rnd.IntN(2) == 0, rnd.IntN(9) == 0, rnd.IntN(13) == 0
			if i < n/2 {
				r.LatencyMS = float64(rnd.IntN(50)) / 10 // few distinct values: counted
			} else {
				r.LatencyMS = rnd.Float64() * 900 // all distinct: kept one by one
			}
			ev := rs.ev.Evaluate(r)
			if rnd.IntN(40) == 0 {
				r.Outcome, r.Error = schema.Error, &schema.CallError{Type: schema.ErrTimeout, Message: "超时"}
			}
			cells.Add(r, ev)
			addEveryNode(nodes, r, ev)
			ev.Release()
			if i%997 == 0 {
				cells.Total() // a read mid-way flushes the cells
			}
		}
		got, want := mustJSON(t, cells.Metrics()), mustJSON(t, nodes.Metrics())
		if got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: metrics through cells differ at byte %d:\ncells: …%s…\nnodes: …%s…", rs.name, i,
				got[max(0, i-150):min(len(got), i+150)], want[max(0, i-150):min(len(want), i+150)])
		}
		if len(want) < 5000 {
			t.Errorf("%s: the metrics are only %d bytes: the test counts too little", rs.name, len(want))
		}
	}
}
