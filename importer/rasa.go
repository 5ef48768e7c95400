package importer

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nlutest/nlutest/spec"
	"gopkg.in/yaml.v3"
)

// rasa is one Rasa import in progress.
type rasa struct {
	s         *suite
	f         Features
	file      string
	responses map[string][]string // domain responses: name → texts
	domain    bool
	markup    bool // user texts carry entity markup (stories)
}

// ReadRasa imports Rasa end-to-end tests: test_cases files (Rasa Pro's
// e2e format: user, bot, utter, slot_was_set, slot_was_not_set steps,
// assertions, fixtures, metadata) and test stories (tests/test_stories.yml:
// stories whose steps are user with intent and entities, action, bot,
// slot_was_set). domain, when not "", is a Rasa domain file or directory
// whose responses give utter steps their texts; the entries of a domain
// directory that are not YAML files are listed in skipped.
func ReadRasa(files []string, domain string, f Features) (res *Result, skipped []Skipped, err error) {
	name := "rasa-e2e"
	if len(files) == 1 {
		name = suiteName(strings.TrimSuffix(files[0], filepath.Ext(files[0])))
	}
	r := &rasa{s: &suite{name: name, from: "Rasa end-to-end tests " + baseNames(files), sources: map[string][]byte{}}, f: f}
	domains, skipped, err := r.plan(files, domain)
	if err != nil {
		return nil, skipped, err
	}
	rd := &reader{access: spec.OwnFiles, what: "The files to import", split: "a few test files at a time (with the same --domain)"}
	if domain != "" {
		if err := r.readDomain(rd, domains); err != nil {
			return nil, skipped, err
		}
	}
	for _, p := range files {
		src, err := rd.file(p)
		if err != nil {
			return nil, skipped, err
		}
		r.s.sources[p] = src
		r.file = p
		if err := r.s.checkText(p, src); err != nil {
			return nil, skipped, err
		}
		if err := r.readFile(src); err != nil {
			return nil, skipped, err
		}
	}
	res, _, err = r.s.result(f, withTracker(rasaTarget, f))
	return res, skipped, err
}

// plan lists the domain's files and checks, before anything is parsed,
// that the test files and domain files are regular files whose sizes sum
// to at most MaxImportBytes.
func (r *rasa) plan(files []string, domain string) (domains []string, skipped []Skipped, err error) {
	var size int64
	if domain != "" {
		st, err := os.Stat(domain)
		if err != nil {
			return nil, nil, err
		}
		domains = []string{domain}
		if st.IsDir() {
			var rel []string
			rel, size, skipped, err = listDir(domain, isYAMLName, "not a .yml or .yaml file")
			if err != nil {
				return nil, skipped, err
			}
			domains = nil
			for _, f := range rel {
				domains = append(domains, filepath.Join(domain, f))
			}
			for i := range skipped {
				skipped[i].Path = filepath.Join(domain, skipped[i].Path)
			}
		} else {
			files = append(append([]string(nil), files...), domain)
		}
	}
	for _, p := range files {
		// A regular file of any size here; the sum is capped below.
		st, err := spec.OwnFiles.Check("", p, math.MaxInt64)
		if err != nil {
			return nil, skipped, err
		}
		size += st.Size()
	}
	if size > MaxImportBytes {
		return nil, skipped, tooMuchInput("The files to import", size, "a few test files at a time (with the same --domain)")
	}
	return domains, skipped, nil
}

func isYAMLName(name string) bool {
	return strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")
}

func baseNames(files []string) string {
	var b []string
	for _, f := range files {
		b = append(b, filepath.Base(f))
	}
	return strings.Join(b, ", ")
}

// readFile reads one test file's test_cases or stories.
func (r *rasa) readFile(src []byte) error {
	root, err := r.s.readYAML(r.file, src, "nlutest import rasa-e2e reads Rasa's YAML test files")
	if err != nil {
		return err
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s has no test_cases or stories: nlutest import rasa-e2e reads Rasa end-to-end test files (test_cases:) and test stories (stories:)", r.file)
	}
	found := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "test_cases":
			found = true
			r.testCases(v, member(root, "fixtures"))
		case "stories":
			found = true
			r.stories(v)
		case "version", "fixtures", "metadata", "stub_custom_actions":
			// fixtures and metadata are read where a test case names them;
			// stub_custom_actions only matter to a bot run by rasa test.
		default:
			r.s.problem(r.file, k.Line, "Untranslatable Rasa section",
				"The %s section holds no end-to-end test; only test_cases and stories are imported. Remove it from the file to import, or pass --partial to leave it out with this warning.", k.Value)
		}
	}
	if !found {
		return fmt.Errorf("%s has no test_cases or stories: nlutest import rasa-e2e reads Rasa end-to-end test files (test_cases:) and test stories (stories:)", r.file)
	}
	return nil
}

// untranslated records a step with no nlutest form.
func (r *rasa) untranslated(c *convo, t *turn, n *yaml.Node, raw, why string) {
	r.s.problemAt(r.file, n.Line, n.Column, "Untranslatable Rasa step", "%q cannot be translated: %s. "+partialHint, raw, why)
	note := fmt.Sprintf("UNTRANSLATED %s:%d %s (%s)", filepath.Base(r.file), n.Line, raw, why)
	if t != nil {
		t.comments = append(t.comments, note)
	} else {
		c.comments = append(c.comments, note)
	}
}

// stepText writes a step back as one line of YAML for messages.
func stepText(k, v *yaml.Node) string {
	out, err := yaml.Marshal(v)
	if err != nil || v.Kind == yaml.ScalarNode {
		return k.Value + ": " + v.Value
	}
	flat := strings.Join(strings.Fields(string(out)), " ")
	return k.Value + ": " + flat
}

// testCases translates a test_cases list.
func (r *rasa) testCases(seq, fixtures *yaml.Node) {
	if seq.Kind != yaml.SequenceNode {
		r.s.problem(r.file, seq.Line, "Test cases are not a list", "test_cases is a list of test_case entries with steps.")
		return
	}
	for _, tc := range seq.Content {
		c := &convo{file: filepath.Base(r.file), line: tc.Line}
		if n := member(tc, "test_case"); n != nil {
			c.name = n.Value
		}
		if fx := member(tc, "fixtures"); fx != nil {
			r.untranslated(c, nil, memberKey(tc, "fixtures"), "fixtures: "+strings.Join(scalars(fx), ", "), "fixtures set tracker slots before the test, which nlutest cannot do through the REST channel; start the conversation with a message that sets them")
		}
		if md := member(tc, "metadata"); md != nil {
			r.untranslated(c, nil, memberKey(tc, "metadata"), "metadata: "+md.Value, "user message metadata is not sent by the rasa target")
		}
		steps := member(tc, "steps")
		if steps == nil || steps.Kind != yaml.SequenceNode {
			r.s.problem(r.file, tc.Line, "Test case without steps", "The test case %q needs a steps list.", c.name)
			continue
		}
		r.steps(c, steps)
		r.s.convos = append(r.s.convos, c)
	}
}

// stories translates a stories list of test stories.
func (r *rasa) stories(seq *yaml.Node) {
	if seq.Kind != yaml.SequenceNode {
		r.s.problem(r.file, seq.Line, "Stories are not a list", "stories is a list of story entries with steps.")
		return
	}
	for _, st := range seq.Content {
		c := &convo{file: filepath.Base(r.file), line: st.Line}
		if n := member(st, "story"); n != nil {
			c.name = n.Value
		}
		steps := member(st, "steps")
		if steps == nil || steps.Kind != yaml.SequenceNode {
			r.s.problem(r.file, st.Line, "Story without steps", "The story %q needs a steps list.", c.name)
			continue
		}
		r.markup = true
		r.steps(c, steps)
		r.markup = false
		r.s.convos = append(r.s.convos, c)
	}
}

// pending collects a turn's bot texts: all plain bot steps make one
// equals check (the reply is the bot's messages joined by newlines).
type pending struct {
	texts   []string
	origins []string
	mixed   bool // an utter step or assertion checked this turn too
}

func (r *rasa) flush(t *turn, p *pending) {
	if t == nil || len(p.texts) == 0 {
		*p = pending{}
		return
	}
	origin := "Rasa " + strings.Join(p.origins, ", ")
	if !p.mixed {
		t.checks = append(t.checks, check{kind: "equals", values: []string{strings.Join(p.texts, "\n")}, origin: origin})
	} else {
		t.checks = append(t.checks, check{kind: "contains", values: p.texts, origin: origin})
	}
	*p = pending{}
}

// steps translates a test case's or story's steps into turns.
func (r *rasa) steps(c *convo, steps *yaml.Node) {
	var cur *turn
	var p pending
	for _, sn := range steps.Content {
		if sn.Kind != yaml.MappingNode || len(sn.Content) < 2 {
			r.untranslated(c, cur, sn, sn.Value, "a step is a mapping such as user: text")
			continue
		}
		k, v := sn.Content[0], sn.Content[1]
		if member(sn, "user") != nil || member(sn, "intent") != nil {
			r.flush(cur, &p)
			cur = r.userTurn(c, sn)
			c.turns = append(c.turns, cur)
			continue
		}
		if cur == nil {
			if !r.f.BotFirst {
				r.untranslated(c, nil, k, stepText(k, v), "a bot step before the first user message needs bot_first turns, which this nlutest lacks")
				continue
			}
			cur = &turn{botFirst: true, line: k.Line}
			c.turns = append(c.turns, cur)
		}
		r.botStep(c, cur, &p, k, v)
	}
	r.flush(cur, &p)
	if len(c.turns) == 0 {
		r.s.problem(r.file, steps.Line, "Test without a user message", "%q sends nothing to the bot, so there is no conversation to import. Add a user step or remove the test"+skipHint, c.name)
	}
}

// botStep translates one step after a user message.
func (r *rasa) botStep(c *convo, t *turn, p *pending, k, v *yaml.Node) {
	where := fmt.Sprintf("%s:%d", filepath.Base(r.file), k.Line)
	switch k.Value {
	case "bot":
		p.texts = append(p.texts, v.Value)
		p.origins = append(p.origins, where+" bot: "+v.Value)
	case "utter":
		p.mixed = true
		r.utter(c, t, k, v.Value, where)
	case "action":
		if strings.HasPrefix(v.Value, "utter_") {
			p.mixed = true
			r.utter(c, t, k, v.Value, where)
			return
		}
		r.untranslated(c, t, k, stepText(k, v), "a custom action's run is not visible in the reply")
	case "slot_was_set", "slot_was_not_set":
		r.slots(c, t, k, v, k.Value == "slot_was_set")
	default:
		r.untranslated(c, t, k, stepText(k, v), "nlutest has no equivalent of a "+k.Value+" step")
	}
}

// utter translates utter: NAME: with a domain, the reply holds one of the
// response's texts; without, the step cannot be checked.
func (r *rasa) utter(c *convo, t *turn, k *yaml.Node, name, where string) {
	texts, ok := r.responses[name]
	switch {
	case !r.domain:
		r.untranslated(c, t, k, "utter: "+name, "a response name is not in the bot's reply; pass --domain domain.yml to check the response's texts")
	case !ok || len(texts) == 0:
		r.untranslated(c, t, k, "utter: "+name, "the domain has no text response named "+name)
	default:
		origin := fmt.Sprintf("Rasa %s utter: %s", where, name)
		t.checks = append(t.checks, responseCheck(texts, origin))
	}
}

// slotTemplate is a {slot} inside a response text.
var slotTemplate = regexp.MustCompile(`\{[^{}]*\}`)

// responseCheck is the check that the reply holds one of a response's
// variants; a {slot} in a variant matches any text.
func responseCheck(texts []string, origin string) check {
	templ := false
	for _, t := range texts {
		templ = templ || slotTemplate.MatchString(t)
	}
	if !templ {
		if len(texts) == 1 {
			return check{kind: "contains", values: texts, origin: origin}
		}
		return check{kind: "contains_any", values: texts, origin: origin}
	}
	alts := make([]string, len(texts))
	for i, t := range texts {
		parts := slotTemplate.Split(t, -1)
		for j, p := range parts {
			parts[j] = regexp.QuoteMeta(p)
		}
		alts[i] = strings.Join(parts, ".*")
	}
	return check{kind: "matches", values: []string{"(?s)(?:" + strings.Join(alts, "|") + ")"}, origin: origin}
}
