package schema

import "encoding/json"

// metrics.coverage: which items of the bot's own model (a Rasa domain,
// NLU data and flows, or a plain list; spec's coverage block) the suite
// exercised. The family is assert/coverage; `nlutest coverage` lays the
// same figures out item by item (CoverageReport).

// CoverageKinds are the kinds of items, as metrics.coverage names them,
// in order (spec/botmodel's kinds).
var CoverageKinds = []string{"intents", "entities", "slots", "responses", "actions", "forms", "flows", "flow_steps"}

// Coverage statuses of an item.
const (
	// CoveragePassing: at least one passing case exercised the item.
	CoveragePassing = "passing"
	// CoverageFailingOnly: cases exercised the item, and every one of them
	// failed or errored.
	CoverageFailingOnly = "failing_only"
	// CoverageUntested: no case exercised the item.
	CoverageUntested = "untested"
	// CoverageUndeclared: cases checked an item the model does not
	// declare (a misspelt intent, an item the bot lost).
	CoverageUndeclared = "undeclared"
)

var coverageCounts = []Attr{
	{Name: "items", Kind: MetricCount, Doc: "items the bot's model declares"},
	{Name: "passing", Kind: MetricCount, Doc: "items exercised by at least one passing case"},
	{Name: "failing_only", Kind: MetricCount, Doc: "items exercised only by cases that failed or errored"},
	{Name: "untested", Kind: MetricCount, Doc: "items no case exercised"},
	{Name: "undeclared", Kind: MetricCount, Doc: "items cases check that the model does not declare"},
	{Name: "ratio", Kind: MetricRatio, Doc: "(passing + failing_only) / items: the share of the model the suite exercises"},
	{Name: "passing_ratio", Kind: MetricRatio, Doc: "passing / items: the share exercised by a passing case"},
}

var coverageItemShape = &Shape{Attrs: []Attr{
	{Name: "passed", Kind: MetricCount, Doc: "passing cases that exercised the item"},
	{Name: "failed", Kind: MetricCount, Doc: "failing or errored cases that exercised the item"},
	{Name: "seen", Kind: MetricCount, Doc: "cases whose recorded answer showed the item, checked or not"},
}}

var coverageKindShape = &Shape{Attrs: coverageCounts, Subs: []*Sub{
	{Name: "item", Doc: "per item the model declares", Keyed: true, What: "item", Shape: coverageItemShape},
	{Name: "undeclared_item", Doc: "per item cases check that the model does not declare", Keyed: true, What: "undeclared item", Shape: coverageItemShape},
}}

var coverageKindDocs = map[string]string{
	"intents":    "intents: checked as a case's expected intent",
	"entities":   "entities: checked as the type of an expected entity",
	"slots":      "slots: checked by a state expectation or a condition reading the slot",
	"responses":  "responses: checked by a reply check naming one of the response's texts",
	"actions":    "custom actions: run during a case (the recorded tracker), or checked as the latest action",
	"forms":      "forms: active during a case (the recorded tracker's active_loop)",
	"flows":      "flows: a step of the flow run during a case",
	"flow_steps": "flow steps: run during a case (the recorded tracker's dialogue stack)",
}

// CoverageFamily is metrics.coverage.
var CoverageFamily = func() *Family {
	sh := &Shape{Attrs: coverageCounts}
	for _, k := range CoverageKinds {
		sh.Subs = append(sh.Subs, &Sub{Name: k, Doc: coverageKindDocs[k], Shape: coverageKindShape, Props: []string{"ratio", "untested"}})
	}
	return &Family{Name: "coverage",
		Absent: "coverage counts the items of the bot's model the suite exercised, and the suite has no coverage block naming the model (docs/language.md#coverage)",
		Subs: []*Sub{{Name: "coverage", Doc: "the bot's own model (the coverage block's domain, NLU data, flows or items list) exercised by the suite's cases",
			Shape: sh, Props: []string{"ratio", "untested"}}}}
}()

// CoverageCounts are the figures of a set of items.
type CoverageCounts struct {
	Items        int   `json:"items"`
	Passing      int   `json:"passing"`
	FailingOnly  int   `json:"failing_only"`
	Untested     int   `json:"untested"`
	Undeclared   int   `json:"undeclared"`
	Ratio        Ratio `json:"ratio"`
	PassingRatio Ratio `json:"passing_ratio"`
}

// Count adds one item of status st.
func (c *CoverageCounts) Count(st string) {
	switch st {
	case CoveragePassing:
		c.Items++
		c.Passing++
	case CoverageFailingOnly:
		c.Items++
		c.FailingOnly++
	case CoverageUntested:
		c.Items++
		c.Untested++
	case CoverageUndeclared:
		c.Undeclared++
	}
	c.Ratio = R(c.Passing+c.FailingOnly, c.Items)
	c.PassingRatio = R(c.Passing, c.Items)
}

// Add adds the counts of o.
func (c *CoverageCounts) Add(o CoverageCounts) {
	c.Items += o.Items
	c.Passing += o.Passing
	c.FailingOnly += o.FailingOnly
	c.Untested += o.Untested
	c.Undeclared += o.Undeclared
	c.Ratio = R(c.Passing+c.FailingOnly, c.Items)
	c.PassingRatio = R(c.Passing, c.Items)
}

// CoverageItem are the cases that exercised one item.
type CoverageItem struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Seen   int `json:"seen"`
}

// Status is the item's coverage status (a declared item's).
func (i CoverageItem) Status() string {
	switch {
	case i.Passed > 0:
		return CoveragePassing
	case i.Failed > 0:
		return CoverageFailingOnly
	}
	return CoverageUntested
}

// CoverageKind is one kind's figures and items in a node.
type CoverageKind struct {
	CoverageCounts
	Item           map[string]CoverageItem `json:"item"`
	UndeclaredItem map[string]CoverageItem `json:"undeclared_item,omitempty"`
}

// Coverage is metrics.coverage in a node: the totals over every kind,
// then each kind the model has (or cases checked).
type Coverage struct {
	CoverageCounts
	Intents   *CoverageKind `json:"intents,omitempty"`
	Entities  *CoverageKind `json:"entities,omitempty"`
	Slots     *CoverageKind `json:"slots,omitempty"`
	Responses *CoverageKind `json:"responses,omitempty"`
	Actions   *CoverageKind `json:"actions,omitempty"`
	Forms     *CoverageKind `json:"forms,omitempty"`
	Flows     *CoverageKind `json:"flows,omitempty"`
	FlowSteps *CoverageKind `json:"flow_steps,omitempty"`
}

// Kind returns the field of kind (a CoverageKinds name), nil for none.
func (c *Coverage) Kind(kind string) **CoverageKind {
	switch kind {
	case "intents":
		return &c.Intents
	case "entities":
		return &c.Entities
	case "slots":
		return &c.Slots
	case "responses":
		return &c.Responses
	case "actions":
		return &c.Actions
	case "forms":
		return &c.Forms
	case "flows":
		return &c.Flows
	case "flow_steps":
		return &c.FlowSteps
	}
	return nil
}

// CoverageOf reads metrics.coverage of node n, whether the node was built
// by a run (a *Coverage) or read back from a report (decoded JSON); nil
// when the node has none.
func CoverageOf(n *Node) *Coverage {
	if n == nil {
		return nil
	}
	v, ok := n.Families[CoverageFamily.Name]
	if !ok || v == nil {
		return nil
	}
	if c, ok := v.(*Coverage); ok {
		return c
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var c Coverage
	if json.Unmarshal(b, &c) != nil {
		return nil
	}
	return &c
}

// CoverageReport is `nlutest coverage`: every item of the bot's model
// with its status and the cases that exercised it, kind by kind.
type CoverageReport struct {
	Suite string `json:"suite"`
	// Run is the run directory read; Cases the cases counted.
	Run   string `json:"run"`
	Cases int    `json:"cases"`
	// Files are the model's files read.
	Files  []string             `json:"files"`
	Totals CoverageCounts       `json:"totals"`
	Kinds  []CoverageKindReport `json:"kinds"`
}

// CoverageKindReport is one kind's items, in the model's declaration
// order, then the undeclared items cases checked, by name.
type CoverageKindReport struct {
	Kind string `json:"kind"`
	CoverageCounts
	Rows []CoverageRow `json:"rows"`
}

// CoverageRow is one item: its status, the cases that exercised it and
// where the model declares it (file:line; empty for an undeclared item).
type CoverageRow struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	CoverageItem
	At     string `json:"at,omitempty"`
	Detail string `json:"detail,omitempty"`
}
