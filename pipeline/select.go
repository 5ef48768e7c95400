package pipeline

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Selection says which of a suite's cases a run calls: the cases of one
// split, those whose template name, id or text match a regular expression,
// and one shard of a stable partition. The zero Selection selects every
// case.
type Selection struct {
	Split  string // "" = every split
	Filter string // the regular expression as given; "" = no filter
	Shard  Shard
	// Only, when not nil, keeps only the scripts whose id, or the id of
	// one of whose turns, it holds (run --only-failed).
	Only map[string]bool
	// OnlyFrom names where Only came from, for messages and run.json.
	OnlyFrom string

	filter *regexp.Regexp
}

// NewSelection checks and compiles a selection from its textual form
// (split name, filter regular expression, shard K/N).
func NewSelection(split, filter, shard string) (Selection, error) {
	sel := Selection{Split: split, Filter: filter}
	if filter != "" {
		re, err := regexp.Compile(filter)
		if err != nil {
			return sel, invalidf("--filter is not a valid regular expression: %v", err)
		}
		sel.filter = re
	}
	sh, err := ParseShard(shard)
	if err != nil {
		return sel, err
	}
	sel.Shard = sh
	return sel, nil
}

// Check refuses a split the suite does not declare.
func (sel Selection) Check(s *spec.Suite) error {
	if sel.Split != "" && s.SplitByName(sel.Split) == nil {
		return invalidf("the suite has no split %q (splits: %s)", sel.Split, strings.Join(s.SplitNames(), ", "))
	}
	return nil
}

// Keep reports whether the selection keeps script sc (its split aside,
// which generation applies). The shard keys on the script id, so a script
// is always run whole; the filter matches the script's source name, its id
// or the text of any of its turns.
func (sel Selection) Keep(sc *schema.Script) bool {
	if !sel.Shard.Has(sc.ID) || sel.Only != nil && !sel.only(sc) {
		return false
	}
	if sel.filter == nil || sel.filter.MatchString(sc.Source) || sel.filter.MatchString(sc.ID) {
		return true
	}
	for i := range sc.Len() {
		if sel.filter.MatchString(sc.At(i).Text) {
			return true
		}
	}
	return false
}

// only reports whether sc or one of its turns is in sel.Only.
func (sel Selection) only(sc *schema.Script) bool {
	if sel.Only[sc.ID] {
		return true
	}
	for i := range sc.Len() {
		if sel.Only[sc.At(i).ID] {
			return true
		}
	}
	return false
}

// Generate streams the selected scripts of s to yield. warn, when set,
// receives generation warnings.
func (sel Selection) Generate(s *spec.Suite, warn func(string), yield func(*schema.Script) error) error {
	return sel.generate(s, false, false, warn, yield)
}

// generate is Generate, lean (spec.GenOptions.Lean) when only the
// selection and a count read the scripts, and count-only
// (spec.GenOptions.CountOnly) when only a count does.
func (sel Selection) generate(s *spec.Suite, lean, countOnly bool, warn func(string), yield func(*schema.Script) error) error {
	gopts := spec.GenOptions{Split: sel.Split, Lean: lean, LeanTexts: sel.filter != nil, CountOnly: countOnly}
	if warn != nil {
		gopts.Warn = func(_ spec.Range, msg string) { warn(msg) }
	}
	return s.GenerateScripts(gopts, func(sc *schema.Script) error {
		if !sel.Keep(sc) {
			return nil
		}
		return yield(sc)
	})
}

// Counts is the size of a selection: its scripts, and its cases (turns, one
// result each) in all and per source. A dynamic script (a scenario, whose
// turns are known only as it runs) counts as one case until it has run;
// Dynamic counts those scripts.
type Counts struct {
	Scripts   int
	Total     int
	Dynamic   int
	PerSource map[string]int
}

// Count generates the selection once (generation is cheap and
// deterministic) and counts it, for progress and to refuse a selection that
// matches nothing before anything is called. It generates lean (cases
// without the slots and expectations only a call reads, and without texts
// when there is no filter), which gives the same scripts, ids, sources,
// turn counts and warnings as Generate. When the selection reads nothing
// of a script (no filter, shard or --only-failed), template cases are not
// built at all (spec.GenOptions.CountOnly): only their number per source.
func (sel Selection) Count(s *spec.Suite, warn func(string)) (Counts, error) {
	return sel.count(s, true, warn)
}

// count is Count, generating lean or in full.
func (sel Selection) count(s *spec.Suite, lean bool, warn func(string)) (Counts, error) {
	n := Counts{PerSource: map[string]int{}}
	countOnly := lean && sel.filter == nil && sel.Shard.N <= 1 && sel.Only == nil
	// Scripts come source by source: the per-source map is written once
	// per run of scripts of one source, not once per script.
	var src string
	run, inRun := 0, false
	err := sel.generate(s, lean, countOnly, warn, func(sc *schema.Script) error {
		if !inRun || sc.Source != src {
			if inRun {
				n.PerSource[src] += run
			}
			src, run, inRun = sc.Source, 0, true
		}
		run += sc.Len()
		n.Scripts++
		n.Total += sc.Len()
		if sc.Next != nil {
			n.Dynamic++
		}
		return nil
	})
	if inRun {
		n.PerSource[src] += run
	}
	if err != nil {
		return n, &GenerateError{err}
	}
	return n, nil
}

// Note describes the selection for a message ("in split smoke matching
// --filter 天气"), with a leading space; "" for every case.
func (sel Selection) Note() string {
	var parts []string
	if sel.Split != "" {
		parts = append(parts, "in split "+sel.Split)
	}
	if sel.Filter != "" {
		parts = append(parts, "matching --filter "+sel.Filter)
	}
	if sel.Only != nil {
		parts = append(parts, "among the failing cases of "+sel.OnlyFrom)
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

// Shard is the K-th of N stable partitions of the cases (--shard K/N). The
// zero Shard is the whole.
type Shard struct{ K, N int }

// ParseShard reads K/N with 1 ≤ K ≤ N; "" is the whole.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	var k, n int
	if _, err := fmt.Sscanf(s, "%d/%d", &k, &n); err != nil || n < 1 || k < 1 || k > n || fmt.Sprintf("%d/%d", k, n) != s {
		return Shard{}, invalidf("--shard takes K/N with 1 ≤ K ≤ N, e.g. 2/4; got %q", s)
	}
	return Shard{k, n}, nil
}

// String is the shard as ParseShard reads it; "" for the whole.
func (sh Shard) String() string {
	if sh.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", sh.K, sh.N)
}

// Has reports whether the case id falls in this shard (a stable hash of the
// id, so every machine agrees and adding cases never moves old ones).
func (sh Shard) Has(id string) bool {
	if sh.N <= 1 {
		return true
	}
	return int(spec.UnitHash("shard", id)*float64(sh.N)) == sh.K-1
}

// emptyShard decides on a selection that holds no case. One shard of a
// selection that is not empty may hold none (3 cases in --shard 2/2):
// the run goes on and records an empty run, so merge of the shards finds
// every shard. Any other empty selection is refused.
func (r *Run) emptyShard(s *spec.Suite) error {
	sel := r.opts.Selection
	if sel.Shard.N > 1 {
		whole := sel
		whole.Shard = Shard{}
		n, err := whole.Count(s, nil)
		if err != nil {
			return err
		}
		if n.Total > 0 {
			r.notice("shard %s holds none of the %d cases%s: it records an empty run, for merge", sel.Shard, n.Total, sel.Note())
			return nil
		}
	}
	return invalidf("no case to run: the suite generates no case%s", sel.Note())
}
