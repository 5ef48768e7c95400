package schema

// The values of the dialogue and repeat metric families (SPEC §13), as the
// report JSON and threshold conditions read them: metrics.dialogue and
// metrics.repeat in every node of the tree.

// Dialogue summarises the conversations of a node: a conversation is
// completed when every one of its turns ran and passed (task completion,
// YD/T 4394.2-2023).
type Dialogue struct {
	Conversations int `json:"conversations"`
	Completed     int `json:"completed"`
	// TaskCompletion = completed / conversations.
	TaskCompletion Ratio `json:"task_completion"`
	// Turns counts the turns that ran (errors included); NotRun the turns
	// left after a turn whose call errored.
	Turns       int `json:"turns"`
	TurnsPassed int `json:"turns_passed"`
	NotRun      int `json:"not_run"`
	// TurnAccuracy = turns_passed / turns.
	TurnAccuracy Ratio `json:"turn_accuracy"`
	// Turn breaks the turns down by index ("1", "2"…).
	Turn map[string]*TurnStats `json:"turn"`
}

// TurnStats are the figures of the turns of one index.
type TurnStats struct {
	Total    int   `json:"total"`
	Passed   int   `json:"passed"`
	Accuracy Ratio `json:"accuracy"`
}

// Repeat summarises a run made with --repeat N: each script ran N times in
// a fresh session; a repetition passes when every turn of it passed.
type Repeat struct {
	// N is the number of repetitions; Scripts the scripts repeated.
	N       int `json:"n"`
	Scripts int `json:"scripts"`
	// Stable counts scripts whose N outcomes agree; stability = stable /
	// scripts.
	Stable    int   `json:"stable"`
	Stability Ratio `json:"stability"`
	// PassAt1 = passing repetitions / all repetitions; PassAtK = scripts
	// with at least one passing repetition / scripts; PassAllK = scripts
	// whose every repetition passed / scripts.
	PassAt1  Ratio `json:"pass_at_1"`
	PassAtK  Ratio `json:"pass_at_k"`
	PassAllK Ratio `json:"pass_all_k"`
	// Flaky lists the ids of the scripts whose outcomes differ (at most
	// MaxFlaky, sorted).
	Flaky []string `json:"flaky,omitempty"`
}

// MaxFlaky caps Repeat.Flaky.
const MaxFlaky = 100

// DialogueFamily is the dialogue family's part of the metrics tree.
var DialogueFamily = &Family{Name: "dialogue", Subs: []*Sub{{
	Name: "dialogue", Doc: "conversations: task completion and per-turn accuracy (present when the run has conversations)",
	Shape: &Shape{
		Attrs: []Attr{
			{Name: "conversations", Kind: MetricCount, Doc: "conversation runs"},
			{Name: "completed", Kind: MetricCount, Doc: "conversations whose every turn ran and passed"},
			{Name: "task_completion", Kind: MetricRatio, Doc: "completed / conversations", CI: CIWilson, CIUnit: UnitConversations},
			{Name: "turns", Kind: MetricCount, Doc: "turns that ran"},
			{Name: "turns_passed", Kind: MetricCount, Doc: "turns that passed"},
			{Name: "not_run", Kind: MetricCount, Doc: "turns not run after a turn whose call errored"},
			{Name: "turn_accuracy", Kind: MetricRatio, Doc: "turns_passed / turns", CI: CIBootstrap, CIUnit: UnitConversations},
		},
		Subs: []*Sub{{Name: "turn", Doc: "per turn index (1, 2…)", Keyed: true, What: "turn index", Shape: &Shape{Attrs: []Attr{
			{Name: "total", Kind: MetricCount, Doc: "turns of this index that ran"},
			{Name: "passed", Kind: MetricCount, Doc: "of them passed"},
			{Name: "accuracy", Kind: MetricRatio, Doc: "passed / total", CI: CIWilson, CIUnit: UnitConversations},
		}}}},
	},
	Props: []string{"conversations", "completed", "task_completion", "turn_accuracy"},
}}}

// RepeatFamily is the repeat family's part of the metrics tree.
var RepeatFamily = &Family{Name: "repeat", Subs: []*Sub{{
	Name: "repeat", Doc: "repeated runs (--repeat N): stability and pass@k (present with --repeat)",
	Shape: &Shape{Attrs: []Attr{
		{Name: "n", Kind: MetricCount, Doc: "repetitions of each script"},
		{Name: "scripts", Kind: MetricCount, Doc: "scripts repeated"},
		{Name: "stable", Kind: MetricCount, Doc: "scripts whose repetitions all had the same outcome"},
		{Name: "stability", Kind: MetricRatio, Doc: "stable / scripts", CI: CIWilson, CIUnit: UnitScripts},
		{Name: "pass_at_1", Kind: MetricRatio, Doc: "passing repetitions / repetitions", CI: CIBootstrap, CIUnit: UnitScripts},
		{Name: "pass_at_k", Kind: MetricRatio, Doc: "scripts with at least one passing repetition / scripts", CI: CIWilson, CIUnit: UnitScripts},
		{Name: "pass_all_k", Kind: MetricRatio, Doc: "scripts whose every repetition passed / scripts", CI: CIWilson, CIUnit: UnitScripts},
	}},
	Props: []string{"n", "stability", "pass_at_1", "pass_at_k", "pass_all_k"},
}}}
