package botmodel

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Kind is a kind of item of a bot's model.
type Kind uint8

// The kinds of items, in the order reports list them.
const (
	Intent Kind = iota
	Entity
	Slot
	Response
	Action
	Form
	Flow
	FlowStep
	// NumKinds is the number of kinds.
	NumKinds
)

var kindNames = [NumKinds]string{"intents", "entities", "slots", "responses", "actions", "forms", "flows", "flow_steps"}
var kindSingular = [NumKinds]string{"intent", "entity", "slot", "response", "action", "form", "flow", "flow step"}

// String is the kind's name in the metrics tree and the plain list:
// "intents", "flow_steps".
func (k Kind) String() string { return kindNames[k] }

// Singular is the kind's name for one item, as reports write it: "intent",
// "flow step".
func (k Kind) Singular() string { return kindSingular[k] }

// KindNames are the kinds' names in order (Kind.String).
func KindNames() []string { return kindNames[:] }

// ParseKind returns the kind named name (Kind.String), false for none.
func ParseKind(name string) (Kind, bool) {
	i := slices.Index(kindNames[:], name)
	return Kind(max(i, 0)), i >= 0
}

// Trace reports whether items of the kind are exercised by being run
// rather than by being checked: custom actions, forms, flows and flow
// steps show only in the dialogue state the target records (the turn's
// tracker), and no reply check names them, so a case exercises one when
// its recorded state shows it run — as Rasa's end-to-end coverage report
// counts a flow step as tested when a test passes through it.
func (k Kind) Trace() bool { return k >= Action }

// Item is one item of a bot's model.
type Item struct {
	Kind Kind
	// Name is the item's name; a flow step's is FLOW/STEP_ID, its step id
	// as the tracker's dialogue stack writes it.
	Name string
	// Detail says what a flow step does ("collect: recipient"), empty for
	// other items.
	Detail string
	// At locates the item's first declaration.
	At hcl.Range
	// Texts are a response's text variants as written ({slot} templates
	// kept), in order.
	Texts []string
	// Initial is a slot's initial_value (YAML decoded: nil, bool, int,
	// float64, string, lists and maps), HasInitial whether one is given.
	Initial    any
	HasInitial bool
	// Flow and Step are a flow step's flow id and step id; OldStep is the
	// default id Rasa versions before 3.8 give a step without an id of
	// its own (IDX_POSTFIX, without the flow id), "" when the step has one.
	Flow, Step, OldStep string
	// Examples counts an intent's NLU training examples.
	Examples int
}

// Model is the items of a bot's model, each kind in declaration order.
type Model struct {
	Items []Item
	// Files are the files read, in order; Sources their bytes, for
	// diagnostics' snippets.
	Files   []string
	Sources map[string][]byte
	byName  [NumKinds]map[string]int
	counts  [NumKinds]int
	// steps maps FLOW and a step id as older Rasa versions write it to
	// the step's index.
	oldSteps map[[2]string]int
}

// Lookup returns the index in Items of the item of kind k named name.
func (m *Model) Lookup(k Kind, name string) (int, bool) {
	i, ok := m.byName[k][name]
	return i, ok
}

// LookupStep returns the index of the step of flow whose id (as the
// tracker's dialogue stack writes it, in the current or the pre-3.8 form)
// is step.
func (m *Model) LookupStep(flow, step string) (int, bool) {
	if i, ok := m.byName[FlowStep][flow+"/"+step]; ok {
		return i, true
	}
	i, ok := m.oldSteps[[2]string{flow, step}]
	return i, ok
}

// Count returns the number of items of kind k.
func (m *Model) Count(k Kind) int { return m.counts[k] }

// add adds an item unless one of its kind and name is declared already;
// it returns the item's index.
func (m *Model) add(it Item) int {
	if m.byName[it.Kind] == nil {
		m.byName[it.Kind] = map[string]int{}
	}
	if i, ok := m.byName[it.Kind][it.Name]; ok {
		return i
	}
	i := len(m.Items)
	m.byName[it.Kind][it.Name] = i
	m.counts[it.Kind]++
	m.Items = append(m.Items, it)
	if it.Kind == FlowStep && it.OldStep != "" {
		if m.oldSteps == nil {
			m.oldSteps = map[[2]string]int{}
		}
		m.oldSteps[[2]string{it.Flow, it.OldStep}] = i
	}
	return i
}

// sorted returns the model with its items in kind order, each kind in
// declaration order.
func (m *Model) sorted() *Model {
	out := &Model{Files: m.Files, Sources: m.Sources}
	items := slices.Clone(m.Items)
	slices.SortStableFunc(items, func(a, b Item) int { return int(a.Kind) - int(b.Kind) })
	for _, it := range items {
		out.add(it)
	}
	return out
}

// Paths names the files a model is read from; each entry is a file or a
// directory, whose .yml and .yaml files are read in name order (a Rasa
// domain or data directory).
type Paths struct {
	// Domain are Rasa domain files: intents, entities, slots, responses,
	// actions, forms.
	Domain []string
	// NLU are Rasa training data files with an nlu section: intents and
	// the entities their examples annotate (and responses of retrieval
	// intents).
	NLU []string
	// Flows are Rasa Pro (CALM) flows files: flows and their steps.
	Flows []string
	// Items are plain lists of items (docs/language.md#coverage), for
	// engines other than Rasa.
	Items []string
}

// ReadFunc reads a file the model names, under the caller's file rules.
type ReadFunc func(path string) ([]byte, error)

// reader is one Load in progress.
type reader struct {
	m     *Model
	read  ReadFunc
	diags hcl.Diagnostics
	// checked are the training data files whose sections were checked
	// (a file read for its nlu and for its flows is warned about once).
	checked map[string]bool
}

// Load reads the files of p into a model. A file that cannot be read or
// parsed, or that does not have the shape its kind needs, is an error
// diagnostic located in it; the model holds what could be read.
func Load(p Paths, read ReadFunc) (*Model, hcl.Diagnostics) {
	r := &reader{m: &Model{Sources: map[string][]byte{}}, read: read, checked: map[string]bool{}}
	for _, group := range []struct {
		paths []string
		what  string
		parse func(file string, src []byte, inDir bool)
	}{
		{p.Domain, "domain", r.domain},
		{p.NLU, "NLU data", r.nlu},
		{p.Flows, "flows", r.flows},
		{p.Items, "items list", r.items},
	} {
		for _, path := range group.paths {
			files, inDir, err := expand(path)
			if err != nil {
				r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read " + group.what,
					Detail: fmt.Sprintf("%s. Name a file or a directory of .yml files.", err), Subject: &hcl.Range{Filename: path}})
				continue
			}
			for _, f := range files {
				src, err := r.read(f)
				if err != nil {
					r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read " + group.what,
						Detail: err.Error() + ".", Subject: &hcl.Range{Filename: f}})
					continue
				}
				if _, ok := r.m.Sources[f]; !ok {
					r.m.Files = append(r.m.Files, f)
				}
				r.m.Sources[f] = src
				group.parse(f, src, inDir)
			}
		}
	}
	return r.m.sorted(), r.diags
}

// expand returns the files a path names: itself, or a directory's .yml
// and .yaml files in name order (subdirectories included, as Rasa reads a
// domain or data directory). inDir is set for the files of a directory:
// one without the section a kind reads is skipped, not an error.
func expand(path string) (files []string, inDir bool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	if !st.IsDir() {
		return []string{path}, false, nil
	}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != path && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")) {
			files = append(files, p)
		}
		return nil
	})
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("%s is a directory without .yml or .yaml files", path)
	}
	return files, true, err
}
