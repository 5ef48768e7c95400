package schema

// The corpus statistics of `nlutest stats` (spec/stats computes them;
// reporters render them): plain data, every list in a stable order, so
// rendering needs no suite.

// Stats are a suite's distributions. Every list is in a stable order.
type Stats struct {
	// Suite is the suite's name; Split the split the cases were limited to
	// ("" for all cases).
	Suite string
	Split string

	// Materials lists every materials block in declaration order.
	Materials []StatsMaterial
	// Levels are the material levels present, M1 < M2 < M3 < M4 < others;
	// "" (values without a level) comes last when present.
	Levels []string
	// MaterialTags counts blocks and values per block tag (the IAO corpus-factory write-up's
	// father_tag; "" for blocks without one), by tag.
	MaterialTags []StatsTagCount
	// ValueTags counts values per value tag (the `tags` of values), by tag.
	ValueTags []StatsCount

	// Cases is the number of cases counted.
	Cases int
	// Templates lists every template in source order, with its cases.
	Templates []StatsTemplate
	// TemplateLevels counts templates (with at least one case) and cases
	// per template level, in level order.
	TemplateLevels []StatsLevelCount
	// Scenes counts cases per scene path prefix ("关系分析",
	// "关系分析/伴随分析", …), by path.
	Scenes []StatsCount
	// Splits counts cases per split in declaration order; a case may be in
	// several. NoSplit counts cases in none.
	Splits  []StatsCount
	NoSplit int
	// Core and NonCore count cases of core and non-core templates.
	Core, NonCore int

	// Dimensions holds the coverage of each dimension of the suite's
	// schema, in schema order; empty when the suite has no schema.
	Dimensions []StatsDimension
}

// StatsMaterial is one materials block.
type StatsMaterial struct {
	Name string
	Tag  string
	// Values is the number of values; ByLevel splits it by value level.
	Values  int
	ByLevel map[string]int
	// Source is the block's source file, Compose its compose patterns.
	Source  string
	Compose []string
}

// StatsTagCount counts the materials blocks and values under one tag.
type StatsTagCount struct {
	Tag       string
	Materials int
	Values    int
}

// StatsCount is a name and how many.
type StatsCount struct {
	Name  string
	Count int
}

// StatsLevelCount counts templates and cases of one template level.
type StatsLevelCount struct {
	Level     string
	Templates int
	Cases     int
}

// StatsTemplate is one template and the cases it generated.
type StatsTemplate struct {
	Name     string
	Level    string
	Core     bool
	Scene    []string
	Strategy string
	Cases    int
	File     string
	Line     int
}

// StatsDimension is the coverage of one schema dimension: which expected
// values the cases' expectations exercise, and how often.
type StatsDimension struct {
	Name string
	// Kind is leaf, items, label or case.
	Kind string
	// Cases counts cases with at least one expectation in the dimension;
	// Expectations counts the units: expectations for leaf, case and label
	// dimensions, expected items for items dimensions.
	Cases        int
	Expectations int
	// Values lists each distinct (field, value), most exercised first.
	Values []StatsValue
}

// StatsValue is one expected value of a dimension and how many expectations
// (or items) exercise it.
type StatsValue struct {
	// Field is the last named step of the expectation's path (ont,
	// relName, phone_number, …); empty for items and labels.
	Field string
	// Value is the expected value: strings as they are, other values as
	// compact JSON; for items, the item's compared keys as "key=value"
	// pairs in the schema's key order.
	Value string
	Count int
}
