package schema

import "encoding/json"

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
	// Turn breaks the turns down by index ("1", "2"…), up to
	// MaxTurnIndices.
	Turn map[string]*TurnStats `json:"turn"`
}

// MaxTurnIndices caps Dialogue.Turn: the turns of a later index count in
// Turns, TurnsPassed and TurnAccuracy, not by index. A breakdown by turn
// index is read for short dialogues; a conversation of 100,000 turns
// would make it 100,000 entries in every node, which a report then holds
// several times over (issue 35).
const MaxTurnIndices = 1000

// TurnStats are the figures of the turns of one index.
type TurnStats struct {
	Total    int   `json:"total"`
	Passed   int   `json:"passed"`
	Accuracy Ratio `json:"accuracy"`
}

// Repeat summarises a run made with --repeat N: each script (a case, a
// conversation, a scenario) ran N times in a fresh session. A repetition
// passes when every turn of it ran and passed; it failed when a turn
// failed (an expectation was not met); it errored when no turn failed but
// a call or its evaluation errored (or turns were left not run after it).
// Each script falls in one class: passed every time, flaky (passed and
// failed), flaky on errors (passed and errored, never failed), or a
// consistent failure (never passed).
type Repeat struct {
	// N is the number of repetitions (the most any script has); Scripts
	// the scripts repeated.
	N       int `json:"n"`
	Scripts int `json:"scripts"`
	// Stable counts scripts that passed every repetition or none (no
	// flip); stability = stable / scripts.
	Stable    int   `json:"stable"`
	Stability Ratio `json:"stability"`
	// Flaky counts the scripts that both passed and failed; FlakyErrors
	// those that passed and errored but never failed; ConsistentFailures
	// those that passed in no repetition.
	Flaky              int `json:"flaky"`
	FlakyErrors        int `json:"flaky_errors"`
	ConsistentFailures int `json:"consistent_failures"`
	// PassAt1, PassAtK and PassAllK are K["1"].PassAt, K[N].PassAt and
	// K[N].PassAll (the names of before K existed).
	PassAt1  Ratio `json:"pass_at_1"`
	PassAtK  Ratio `json:"pass_at_k"`
	PassAllK Ratio `json:"pass_all_k"`
	// K holds pass@k and pass^k by k ("1", "2" … RepeatKs).
	K map[string]*RepeatK `json:"k,omitempty"`
	// FlakyCases, FlakyErrorCases and FailingCases list the scripts of
	// each class (at most MaxFlaky each, most flips first, then by id).
	FlakyCases      []RepeatCase `json:"flaky_cases,omitempty"`
	FlakyErrorCases []RepeatCase `json:"flaky_error_cases,omitempty"`
	FailingCases    []RepeatCase `json:"consistent_failure_cases,omitempty"`
}

// RepeatK is pass@k and pass^k for one k over the scripts with at least k
// repetitions: pass@k the chance that at least one of k repetitions drawn
// without replacement passes (the unbiased estimator of Chen et al. 2021),
// pass^k the chance that all k pass (τ-bench, Yao et al. 2024), averaged
// over scripts. When every such script has the same number of
// repetitions n, num and den count k-subsets of repetitions (den =
// scripts × C(n, k)); otherwise num is the sum of the scripts' estimates
// and den the number of scripts.
type RepeatK struct {
	Scripts int   `json:"scripts"`
	PassAt  Ratio `json:"pass_at"`
	PassAll Ratio `json:"pass_all"`
}

// RepeatCase is one script of a Repeat list: its repetitions recorded,
// how many passed, failed and errored, the flips (changes between passing
// and not passing from one repetition to the next, in repetition order)
// and the outcomes in that order (P pass, F fail, E error; at most
// MaxRepeatOutcomes, then …).
type RepeatCase struct {
	ID       string `json:"id"`
	Source   string `json:"source,omitempty"`
	Kind     string `json:"kind,omitempty"`
	Text     string `json:"text"`
	Runs     int    `json:"runs"`
	Passed   int    `json:"passed"`
	Failed   int    `json:"failed"`
	Errored  int    `json:"errored"`
	Flips    int    `json:"flips"`
	Outcomes string `json:"outcomes"`
}

// UnmarshalJSON reads what encoding/json writes, and reports written
// before 2026-12, whose flaky was the list of the flaky scripts' ids.
func (r *Repeat) UnmarshalJSON(b []byte) error {
	type plain Repeat
	var aux struct {
		*plain
		Flaky json.RawMessage `json:"flaky"`
	}
	aux.plain = (*plain)(r)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	if len(aux.Flaky) > 0 && aux.Flaky[0] == '[' {
		var ids []string
		if err := json.Unmarshal(aux.Flaky, &ids); err != nil {
			return err
		}
		r.Flaky = len(ids)
		for _, id := range ids {
			r.FlakyCases = append(r.FlakyCases, RepeatCase{ID: id})
		}
		return nil
	}
	if len(aux.Flaky) > 0 && string(aux.Flaky) != "null" {
		return json.Unmarshal(aux.Flaky, &r.Flaky)
	}
	return nil
}

// MaxFlaky caps each list of Repeat; MaxRepeatOutcomes the outcomes
// string of a listed script.
const (
	MaxFlaky          = 100
	MaxRepeatOutcomes = 100
)

// RepeatKs are the values of k that Repeat.K holds for N repetitions:
// every k from 1 to N when N ≤ 20, else 1 to 10 and N.
func RepeatKs(n int) []int {
	var ks []int
	for k := 1; k <= n && (k <= 10 || n <= 20); k++ {
		ks = append(ks, k)
	}
	if n > 20 {
		ks = append(ks, n)
	}
	return ks
}

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
	Name: "repeat", Doc: "repeated runs (--repeat N): flaky cases, stability, pass@k and pass^k (present with --repeat)",
	Shape: &Shape{
		Attrs: []Attr{
			{Name: "n", Kind: MetricCount, Doc: "repetitions of each script"},
			{Name: "scripts", Kind: MetricCount, Doc: "scripts repeated (cases, conversations, scenarios)"},
			{Name: "stable", Kind: MetricCount, Doc: "scripts that passed every repetition or none"},
			{Name: "stability", Kind: MetricRatio, Doc: "stable / scripts", CI: CIWilson, CIUnit: UnitScripts},
			{Name: "flaky", Kind: MetricCount, Doc: "scripts that passed in some repetitions and failed in others"},
			{Name: "flaky_errors", Kind: MetricCount, Doc: "scripts that passed in some repetitions and errored in the others (never failed)"},
			{Name: "consistent_failures", Kind: MetricCount, Doc: "scripts that passed in no repetition"},
			{Name: "pass_at_1", Kind: MetricRatio, Doc: "k[\"1\"].pass_at: the chance that one repetition passes", CI: CIBootstrap, CIUnit: UnitScripts},
			{Name: "pass_at_k", Kind: MetricRatio, Doc: "k[N].pass_at: scripts with at least one passing repetition / scripts", CI: CIWilson, CIUnit: UnitScripts},
			{Name: "pass_all_k", Kind: MetricRatio, Doc: "k[N].pass_all: scripts whose every repetition passed / scripts", CI: CIWilson, CIUnit: UnitScripts},
		},
		Subs: []*Sub{{Name: "k", Doc: "pass@k and pass^k by k (1…N; above N = 20: 1…10 and N)", Keyed: true, What: "k",
			Shape: &Shape{Attrs: []Attr{
				{Name: "scripts", Kind: MetricCount, Doc: "scripts with at least k repetitions"},
				{Name: "pass_at", Kind: MetricRatio, Doc: "pass@k: mean over scripts of 1 − C(n−c, k) / C(n, k) (Chen et al. 2021)"},
				{Name: "pass_all", Kind: MetricRatio, Doc: "pass^k: mean over scripts of C(c, k) / C(n, k) (τ-bench, Yao et al. 2024)"},
			}},
			Props: []string{"pass_at", "pass_all"},
		}},
	},
	Props: []string{"n", "stability", "flaky", "flaky_errors", "consistent_failures", "pass_at_1", "pass_at_k", "pass_all_k"},
}}}
