package schema

// Task is metrics.task in a node: task success of the scenario runs whose
// scenario has a task block, as MultiWOZ evaluates a dialogue system
// (docs/metrics.md, "Task"). InformRate and SuccessRate follow the
// MultiWOZ_Evaluation project (Nekvinda & Dušek 2021, "Shades of BLEU,
// Flavours of Success: The Case of MultiWOZ"), as fractions rather than
// its percentages; BookRate and the inform precision, recall and F1
// follow ConvLab-2's MultiWOZ evaluator, which that project does not
// compute.
type Task struct {
	TaskFigures
	// Domain breaks the figures down by the task blocks' domain.
	Domain map[string]*TaskFigures `json:"domain"`
}

// TaskFigures are the figures of metrics.task and of each entry of
// metrics.task.domain.
type TaskFigures struct {
	// Dialogues counts the scenario runs.
	Dialogues int `json:"dialogues"`
	// Informed counts the runs whose last offer met every goal constraint
	// the offers read (or that offer nothing the goal constrains);
	// InformRate = informed / dialogues.
	Informed   int   `json:"informed"`
	InformRate Ratio `json:"inform_rate"`
	// Succeeded counts the informed runs that provided every request
	// item; SuccessRate = succeeded / dialogues.
	Succeeded   int   `json:"succeeded"`
	SuccessRate Ratio `json:"success_rate"`
	// Bookings counts the runs whose task reads a booking; BookRate is
	// the mean over them of the share of booked values equal to the
	// goal's (0 for a run that booked nothing).
	Bookings int   `json:"bookings"`
	BookRate Ratio `json:"book_rate"`
	// Requesting counts the runs whose goal requests something; the
	// inform precision, recall and F1 are the means over them of each
	// run's TP/(TP+FP), TP/(TP+FN) and their harmonic mean.
	Requesting      int   `json:"requesting"`
	InformPrecision Ratio `json:"inform_precision"`
	InformRecall    Ratio `json:"inform_recall"`
	InformF1        Ratio `json:"inform_f1"`
	// TP, FP and FN are the runs' counts summed: request items provided,
	// values given that were neither requested nor informed, request
	// items not provided.
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
}

var taskFigureAttrs = []Attr{
	{Name: "dialogues", Kind: MetricCount, Doc: "scenario runs whose scenario has a task block"},
	{Name: "informed", Kind: MetricCount, Doc: "runs whose last offer met every goal constraint the offers read (or that need no offer)"},
	{Name: "inform_rate", Kind: MetricRatio, Doc: "informed / dialogues (MultiWOZ's Inform)", CI: CIWilson, CIUnit: UnitScenarios},
	{Name: "succeeded", Kind: MetricCount, Doc: "informed runs that provided every request item"},
	{Name: "success_rate", Kind: MetricRatio, Doc: "succeeded / dialogues (MultiWOZ's Success)", CI: CIWilson, CIUnit: UnitScenarios},
	{Name: "bookings", Kind: MetricCount, Doc: "runs whose task reads a booking (booked)"},
	{Name: "book_rate", Kind: MetricRatio, Doc: "mean over bookings of the share of booked values equal to the goal's (ConvLab-2's book rate)"},
	{Name: "requesting", Kind: MetricCount, Doc: "runs whose goal requests something"},
	{Name: "inform_precision", Kind: MetricRatio, Doc: "mean over requesting runs of TP / (TP + FP) (ConvLab-2)"},
	{Name: "inform_recall", Kind: MetricRatio, Doc: "mean over requesting runs of TP / (TP + FN) (ConvLab-2)"},
	{Name: "inform_f1", Kind: MetricRatio, Doc: "mean over requesting runs of the harmonic mean of the two (ConvLab-2)"},
	{Name: "tp", Kind: MetricCount, Doc: "request items provided, summed over runs"},
	{Name: "fp", Kind: MetricCount, Doc: "values the bot gave that were neither requested nor informed, summed over runs"},
	{Name: "fn", Kind: MetricCount, Doc: "request items not provided, summed over runs"},
}

// TaskFamily is the task family's part of the metrics tree.
var TaskFamily = &Family{Name: "task", Absent: "metrics.task counts the runs of scenarios with a task block, and this run has none", Subs: []*Sub{{
	Name: "task", Doc: "task success as MultiWOZ evaluates it: inform, success and book rates, inform precision/recall/F1 (present when the run has scenarios with a task block)",
	Shape: &Shape{
		Attrs: taskFigureAttrs,
		Subs: []*Sub{{Name: "domain", Doc: "per task domain", Keyed: true, What: "task domain", Shape: &Shape{Attrs: taskFigureAttrs},
			Props: []string{"dialogues", "inform_rate", "success_rate", "book_rate", "inform_f1"}}},
	},
	Props: []string{"dialogues", "inform_rate", "success_rate", "book_rate", "inform_precision", "inform_recall", "inform_f1"},
}}}
