package schema

// Memory is metrics.memory (SPEC §13, the chatbot memory-test patent
// 一种测试方法、装置、设备及计算机可读存储介质): the questions of a node's
// memory cases by verdict, overall and per distance.
type Memory struct {
	MemoryStats
	// Distance breaks the figures down by distance ("0", "2"…): the filler
	// turns between the last fact told and the first question.
	Distance map[string]*MemoryStats `json:"distance"`
}

// MemoryStats are the memory figures of a set of questions.
type MemoryStats struct {
	// Facts counts the facts asked about (per case); Questions the
	// questions asked.
	Facts        int `json:"facts"`
	Questions    int `json:"questions"`
	Entailed     int `json:"entailed"`
	Neutral      int `json:"neutral"`
	Contradicted int `json:"contradicted"`
	Unanswered   int `json:"unanswered"`
	// Unparseable counts answers a judge target's judgement could not be
	// read for (never guessed).
	Unparseable int `json:"unparseable"`
	// Score = entailed / questions.
	Score Ratio `json:"score"`
}

var memoryAttrs = []Attr{
	{Name: "facts", Kind: MetricCount, Doc: "facts asked about (one per fact and case)"},
	{Name: "questions", Kind: MetricCount, Doc: "questions asked"},
	{Name: "entailed", Kind: MetricCount, Doc: "answers that state the fact"},
	{Name: "neutral", Kind: MetricCount, Doc: "answers that neither state nor contradict the fact"},
	{Name: "contradicted", Kind: MetricCount, Doc: "answers that state another value"},
	{Name: "unanswered", Kind: MetricCount, Doc: "questions whose call errored or whose reply was empty"},
	{Name: "unparseable", Kind: MetricCount, Doc: "answers a judge target gave no verdict for (its call failed or its answer is not one verdict word)"},
	{Name: "score", Kind: MetricRatio, Doc: "entailed / questions", CI: CIBootstrap, CIUnit: UnitMemoryCases},
}

// MemoryFamily is the memory family's part of the metrics tree.
var MemoryFamily = &Family{Name: "memory", Absent: "metrics.memory counts the memory questions this run asked, per distance; --filter, --split and --shard choose which conversations run", Subs: []*Sub{{
	Name: "memory", Doc: "memory tests: answers to questions about facts told earlier, by verdict (present when the suite has memory blocks)",
	Shape: &Shape{
		Attrs: memoryAttrs,
		Subs: []*Sub{{Name: "distance", Doc: "per distance (filler turns between the last fact and the first question)", Keyed: true, What: "distance",
			Shape: &Shape{Attrs: memoryAttrs}}},
	},
	Props: []string{"questions", "entailed", "neutral", "contradicted", "unanswered", "score"},
}}}
