package botmodel

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

// names lists the model's items of kind k in order.
func names(m *Model, k Kind) []string {
	var out []string
	for _, it := range m.Items {
		if it.Kind == k {
			out = append(out, it.Name)
		}
	}
	return out
}

func load(t *testing.T, p Paths) *Model {
	t.Helper()
	m, diags := Load(p, readFile)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, d := range diags {
		t.Errorf("unexpected warning: %s: %s", d.Summary, d.Detail)
	}
	return m
}

// Rasa's own example bots, read as they are in RasaHQ/rasa (testdata/README.md):
// every item of the concertbot domain and NLU data, hand-listed in
// declaration order, the NLU file adding the intents the domain of that
// commit lacks; the moodbot domain's utter_ actions are responses whose
// texts come from its templates.
func TestRasaExampleBots(t *testing.T) {
	m := load(t, Paths{Domain: []string{"testdata/rasa/concertbot_domain.yml"}, NLU: []string{"testdata/rasa/concertbot_nlu.yml"}})
	want := map[Kind][]string{
		Intent:   {"greet", "thankyou", "goodbye", "search_concerts", "search_venues", "compare_reviews", "bot_challenge", "nlu_fallback", "how_to_get_started", "affirm", "deny"},
		Entity:   {"name"},
		Slot:     {"concerts", "venues"},
		Response: {"utter_greet", "utter_goodbye", "utter_default", "utter_youarewelcome", "utter_iamabot"},
		Action:   {"action_search_concerts", "action_search_venues", "action_show_concert_reviews", "action_show_venue_reviews"},
	}
	for k := Kind(0); k < NumKinds; k++ {
		if got := names(m, k); !reflect.DeepEqual(got, want[k]) {
			t.Errorf("%s = %q, want %q", k, got, want[k])
		}
	}
	examples := map[string]int{"greet": 6, "goodbye": 3, "thankyou": 3, "search_concerts": 3, "search_venues": 3, "compare_reviews": 2, "how_to_get_started": 3, "affirm": 3, "deny": 3}
	for _, it := range m.Items {
		if it.Kind == Intent && it.Examples != examples[it.Name] {
			t.Errorf("intent %s has %d examples, want %d", it.Name, it.Examples, examples[it.Name])
		}
	}
	i, _ := m.Lookup(Intent, "search_venues")
	if at := m.Items[i].At; at.Filename != "testdata/rasa/concertbot_domain.yml" || at.Start.Line != 14 || at.Start.Column != 4 {
		t.Errorf("search_venues declared at %s", at)
	}
	i, _ = m.Lookup(Intent, "deny")
	if at := m.Items[i].At; at.Filename != "testdata/rasa/concertbot_nlu.yml" || at.Start.Line != 53 {
		t.Errorf("deny declared at %s", at)
	}
	i, _ = m.Lookup(Response, "utter_youarewelcome")
	if got := m.Items[i].Texts; !reflect.DeepEqual(got, []string{"you're very welcome"}) {
		t.Errorf("utter_youarewelcome texts %q", got)
	}

	mood := load(t, Paths{Domain: []string{"../../importer/testdata/rasa/initial_project_domain.yml"}})
	if got := names(mood, Response); !reflect.DeepEqual(got, []string{"utter_greet", "utter_cheer_up", "utter_did_that_help", "utter_happy", "utter_goodbye", "utter_iamabot"}) {
		t.Errorf("moodbot responses %q", got)
	}
	if got := names(mood, Action); got != nil {
		t.Errorf("moodbot actions %q, want none (its actions are all utter_)", got)
	}
	i, _ = mood.Lookup(Response, "utter_cheer_up")
	if got := mood.Items[i].Texts; !reflect.DeepEqual(got, []string{"Here is something to cheer you up:"}) {
		t.Errorf("utter_cheer_up texts %q", got)
	}
}

// Rasa's money_transfer example flows (step ids given), with its domain:
// the flow, its seven steps and what each does.
func TestRasaExampleFlows(t *testing.T) {
	m := load(t, Paths{Domain: []string{"testdata/rasa/money_transfer_domain.yml"}, Flows: []string{"testdata/rasa/money_transfer_flows.yml"}})
	if got := names(m, Flow); !reflect.DeepEqual(got, []string{"transfer_money"}) {
		t.Errorf("flows %q", got)
	}
	var steps []string
	for _, it := range m.Items {
		if it.Kind == FlowStep {
			steps = append(steps, it.Name+" ("+it.Detail+")")
		}
	}
	want := []string{
		"transfer_money/ask_recipient (collect: recipient)",
		"transfer_money/ask_amount (collect: amount)",
		"transfer_money/check_funds (action: action_sufficient_funds)",
		"transfer_money/insufficient_funds (action: utter_insufficient_funds)",
		"transfer_money/confirm_transfer (collect: final_confirmation)",
		"transfer_money/transfer_cancelled (action: utter_transfer_cancelled)",
		"transfer_money/transfer_successful (action: utter_transfer_complete)",
	}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("steps\n%q\nwant\n%q", steps, want)
	}
	if got := names(m, Slot); len(got) != 4 || len(names(m, Response)) != 6 || len(names(m, Action)) != 1 {
		t.Errorf("domain: slots %q, responses %q, actions %q", got, names(m, Response), names(m, Action))
	}
}

// Chinese names throughout, and flow steps without ids: their default ids
// hand-counted by Rasa's rule (a step, its branches' steps, the next step;
// FLOW_IDX_POSTFIX, and IDX_POSTFIX before Rasa 3.8).
func TestChineseModel(t *testing.T) {
	m := load(t, Paths{Domain: []string{"testdata/zh/domain.yml"}, NLU: []string{"testdata/zh/nlu.yml"}, Flows: []string{"testdata/zh/flows.yml"}})
	want := map[Kind][]string{
		Intent:   {"问候", "订餐", "查询天气", "告别"},
		Entity:   {"城市", "人数"},
		Slot:     {"城市", "人数", "日期"},
		Response: {"utter_问候", "utter_询问城市", "utter_确认", "utter_再见", "utter_人数太多"},
		Action:   {"action_查询天气"},
		Form:     {"订餐表单"},
		Flow:     {"订餐", "查天气", "选城市"},
		FlowStep: {"订餐/订餐_0_collect_城市", "订餐/订餐_1_collect_人数", "订餐/订餐_2_utter_人数太多", "订餐/确认",
			"查天气/查天气_0_call_选城市", "查天气/查天气_1_action_查询天气", "查天气/查天气_2_link_订餐",
			"选城市/选城市_0_collect_城市", "选城市/选城市_1_set_slots", "选城市/选城市_2_noop"},
	}
	for k := Kind(0); k < NumKinds; k++ {
		if got := names(m, k); !reflect.DeepEqual(got, want[k]) {
			t.Errorf("%s = %q, want %q", k, got, want[k])
		}
	}
	if i, ok := m.LookupStep("订餐", "2_utter_人数太多"); !ok || m.Items[i].Name != "订餐/订餐_2_utter_人数太多" {
		t.Errorf("the pre-3.8 id of a branch step is not found")
	}
	if _, ok := m.LookupStep("订餐", "3_确认"); ok {
		t.Errorf("a step with an id of its own has no other")
	}
	i, _ := m.Lookup(Slot, "人数")
	if it := m.Items[i]; !it.HasInitial || it.Initial != 2 {
		t.Errorf("人数's initial value %v %v", it.Initial, it.HasInitial)
	}
	i, _ = m.Lookup(Entity, "人数")
	if at := m.Items[i].At; at.Start.Line != 10 || at.Start.Column != 7 {
		t.Errorf("the annotation of 人数 is at %s, want line 10 col 7", at)
	}
	i, _ = m.Lookup(Intent, "订餐")
	if m.Items[i].Examples != 3 {
		t.Errorf("订餐 has %d examples", m.Items[i].Examples)
	}
	items := load(t, Paths{Items: []string{"testdata/zh/items.yml"}})
	if got := names(items, Slot); !reflect.DeepEqual(got, []string{"出发城市", "到达城市", "日期"}) {
		t.Errorf("items list slots %q", got)
	}
	i, _ = items.Lookup(Response, "确认")
	if got := items.Items[i].Texts; !reflect.DeepEqual(got, []string{"已为您订好{日期}从{出发城市}到{到达城市}的票。"}) {
		t.Errorf("确认 texts %q", got)
	}
}

// A domain or data directory is read whole, in name order,
// subdirectories included; a file of it without domain sections is left
// alone.
func TestDirectories(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"a.yml":         "intents:\n  - 问候\nresponses:\n  utter_问候:\n    - text: 你好\n",
		"sub/b.yaml":    "intents:\n  - 订餐\n  - 问候\nslots:\n  城市:\n    type: text\n",
		"notes.yml":     "flows:\n  f:\n    steps: []\n",
		".hidden/c.yml": "intents:\n  - 隐藏\n",
		"README.md":     "intents:\n  - 说明\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := load(t, Paths{Domain: []string{dir}})
	if got := names(m, Intent); !reflect.DeepEqual(got, []string{"问候", "订餐"}) {
		t.Errorf("intents of the directory %q", got)
	}
	if got := names(m, Slot); !reflect.DeepEqual(got, []string{"城市"}) {
		t.Errorf("slots of the directory %q", got)
	}
}

// Bad files give located diagnostics that say what to do; nothing
// panics.
func TestDiagnostics(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, src string
		paths     func(string) Paths
		severity  hcl.DiagnosticSeverity
		summary   string
		line, col int
		detail    string
	}{
		{"not yaml", "responses:\n  utter_a:\n    - text: \"hi\n", domainOf, hcl.DiagError, "Invalid YAML", 3, 1, "is not YAML"},
		{"intents a mapping", "intents:\n  greet: {}\n", domainOf, hcl.DiagError, "Section is not a list", 2, 3, "a list of names"},
		{"intent a list", "intents:\n  - [a, b]\n", domainOf, hcl.DiagError, "Invalid intent", 2, 5, "this entry is a list"},
		{"slot a string", "slots:\n  城市: text\n", domainOf, hcl.DiagError, "Invalid slot", 2, 7, `Slot "城市"`},
		{"responses a list", "responses:\n  - utter_a\n", domainOf, hcl.DiagError, "Responses are not a mapping", 2, 3, "maps each response"},
		{"response a string", "responses:\n  utter_a: hi\n", domainOf, hcl.DiagError, "Invalid response", 2, 12, "list of variants"},
		{"misspelt section", "intens:\n  - greet\n", domainOf, hcl.DiagWarning, "Unknown domain section", 1, 1, `Did you mean "intents"?`},
		{"domain a list", "- greet\n", domainOf, hcl.DiagError, "Domain is not a mapping", 1, 1, "mapping of sections"},
		{"nlu a mapping", "nlu:\n  greet: hi\n", nluOf, hcl.DiagError, "NLU data is not a list", 2, 3, "list of entries"},
		{"flow without steps", "flows:\n  订餐:\n    description: x\n", flowsOf, hcl.DiagError, "Flow without steps", 2, 3, `Flow "订餐" needs a steps list`},
		{"flow step a string", "flows:\n  f:\n    steps:\n      - collect\n", flowsOf, hcl.DiagError, "Invalid flow step", 4, 9, "this one is the value"},
		{"unknown step", "flows:\n  f:\n    steps:\n      - ask: x\n", flowsOf, hcl.DiagWarning, "Unknown flow step", 4, 9, "default id postfix"},
		{"items kind", "intent: [a]\n", itemsOf, hcl.DiagError, "Unknown kind of item", 1, 1, `Did you mean "intents"?`},
		{"items entry", "slots: [a, {b: 1}]\n", itemsOf, hcl.DiagError, "Invalid item", 1, 12, "named by a string"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".yml")
			if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags := Load(c.paths(p), readFile)
			if len(diags) != 1 {
				t.Fatalf("case %d: %d diagnostics, want 1: %v", i, len(diags), diags)
			}
			d := diags[0]
			if d.Severity != c.severity || d.Summary != c.summary || d.Subject == nil || d.Subject.Filename != p ||
				d.Subject.Start.Line != c.line || d.Subject.Start.Column != c.col || !strings.Contains(d.Detail, c.detail) {
				t.Errorf("got %v %q at %v: %s\nwant %q at %d:%d with %q", d.Severity, d.Summary, d.Subject, d.Detail, c.summary, c.line, c.col, c.detail)
			}
		})
	}
	_, diags := Load(Paths{Domain: []string{filepath.Join(dir, "missing.yml")}}, readFile)
	if !diags.HasErrors() || diags[0].Summary != "Cannot read domain" {
		t.Errorf("a missing domain: %v", diags)
	}
}

func domainOf(p string) Paths { return Paths{Domain: []string{p}} }
func nluOf(p string) Paths    { return Paths{NLU: []string{p}} }
func flowsOf(p string) Paths  { return Paths{Flows: []string{p}} }
func itemsOf(p string) Paths  { return Paths{Items: []string{p}} }
