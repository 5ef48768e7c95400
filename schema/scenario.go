package schema

// Scenario summarises the scenario runs of a node (SPEC §14.6): goal-driven
// conversations played by a simulated user. A scenario succeeds when its
// success condition holds after some turn within max_turns; YD/T
// 4394.2-2023's task completion rate over simulated dialogues is
// SuccessRate.
type Scenario struct {
	Scenarios int `json:"scenarios"`
	Succeeded int `json:"succeeded"`
	// SuccessRate = succeeded / scenarios.
	SuccessRate Ratio `json:"success_rate"`
	// TurnsMean, TurnsP50 and TurnsP90 are the turns to success of the
	// scenarios that succeeded (nearest-rank percentiles); nil when none
	// did.
	TurnsMean *float64 `json:"turns_mean"`
	TurnsP50  *float64 `json:"turns_p50"`
	TurnsP90  *float64 `json:"turns_p90"`
	// Stuck counts scenarios that reached max_turns without success;
	// Errored those that ended at a call that errored.
	Stuck   int `json:"stuck"`
	Errored int `json:"errored"`
	// BySlot counts, per inform slot, the user turns that answered the
	// bot's ask for it (asked) and every user turn that gave it (given:
	// answers and volunteers).
	BySlot map[string]*SlotCounts `json:"by_slot"`
}

// SlotCounts are one inform slot's counts in metrics.scenario.by_slot.
type SlotCounts struct {
	Asked int `json:"asked"`
	Given int `json:"given"`
}

// ScenarioFamily is the scenario family's part of the metrics tree.
var ScenarioFamily = &Family{Name: "scenario", Subs: []*Sub{{
	Name: "scenario", Doc: "simulated-user scenarios: success rate and turns to success (present when the run has scenarios)",
	Shape: &Shape{
		Attrs: []Attr{
			{Name: "scenarios", Kind: MetricCount, Doc: "scenario runs"},
			{Name: "succeeded", Kind: MetricCount, Doc: "scenarios whose success condition held after some turn within max_turns"},
			{Name: "success_rate", Kind: MetricRatio, Doc: "succeeded / scenarios", CI: CIWilson, CIUnit: UnitScenarios},
			{Name: "turns_mean", Kind: MetricNumber, Doc: "mean turns to success of the scenarios that succeeded (null when none did)", LowerBetter: true},
			{Name: "turns_p50", Kind: MetricNumber, Doc: "median turns to success (nearest rank; null when none succeeded)", LowerBetter: true},
			{Name: "turns_p90", Kind: MetricNumber, Doc: "90th percentile of turns to success (nearest rank; null when none succeeded)", LowerBetter: true},
			{Name: "stuck", Kind: MetricCount, Doc: "scenarios that reached max_turns without success"},
			{Name: "errored", Kind: MetricCount, Doc: "scenarios ended by a call that errored"},
		},
		Subs: []*Sub{{Name: "by_slot", Doc: "per inform slot", Keyed: true, What: "slot", Shape: &Shape{Attrs: []Attr{
			{Name: "asked", Kind: MetricCount, Doc: "user turns answering the bot's ask for the slot"},
			{Name: "given", Kind: MetricCount, Doc: "user turns giving the slot (answers and volunteers)"},
		}}}},
	},
	Props: []string{"scenarios", "succeeded", "success_rate", "turns_mean", "stuck"},
}}}
