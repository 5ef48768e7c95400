package assert

import "github.com/nlutest/nlutest/schema"

func evalCollect(ev *Evaluator, col *Collector, r *schema.Result) {
	e := ev.Evaluate(r)
	col.Add(r, e)
	e.Release()
}
