package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nlutest/nlutest/spec"
	"gopkg.in/yaml.v3"
)

// hasMemoryVar reports whether text holds a Botium scripting memory
// variable, $name: a dollar sign before a letter or an underscore. (A
// scan rather than a regexp: it runs on every bot line an include bomb
// inlines, and regexp's matcher state comes from a sync.Pool that the
// race detector empties at random.)
func hasMemoryVar(text string) bool {
	for i := strings.IndexByte(text, '$'); i >= 0; {
		r, _ := utf8.DecodeRuneInString(text[i+1:])
		if r == '_' || unicode.IsLetter(r) {
			return true
		}
		j := strings.IndexByte(text[i+1:], '$')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// botium is one Botium import in progress.
type botium struct {
	s        *suite
	f        Features
	utter    map[string][]string // utterance lists by name
	partials map[string]*bConvo  // partial convos by name
	used     map[string]bool     // utterance lists turned into materials
}

// ReadBotium imports every Botium convo under dir: *.convo.txt (a convo),
// *.pconvo.txt (a partial convo, included by name), *.utterances.txt, and
// the object form in *.json, *.yml and *.yaml files (convos,
// partialConvos and utterances keys). Every other entry under dir is
// listed in skipped with the reason, also when err is not nil. dir may be
// a symbolic link to a directory; links under it are not followed.
func ReadBotium(dir string, f Features) (res *Result, skipped []Skipped, err error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, nil, err
	}
	if st, err := os.Stat(root); err != nil {
		return nil, nil, err
	} else if !st.IsDir() {
		return nil, nil, fmt.Errorf("%s is not a directory: nlutest import botium reads a directory of Botium convos (*.convo.txt, *.pconvo.txt, *.utterances.txt, and convos in *.json and *.yml files)", dir)
	}
	files, size, skipped, err := listDir(root, isBotiumFile, "not a Botium convo, partial convo or utterances file")
	if err != nil {
		return nil, skipped, err
	}
	split := "a subdirectory at a time, each with the partial convos and utterance lists its convos use"
	if size > MaxImportBytes {
		return nil, skipped, tooMuchInput("The files to import under "+dir, size, split)
	}
	b := &botium{s: &suite{name: suiteName(dir), from: "Botium convos in " + filepath.Base(filepath.Clean(dir)), sources: map[string][]byte{}, base: dir},
		f: f, utter: map[string][]string{}, partials: map[string]*bConvo{}, used: map[string]bool{}}
	rd := &reader{access: spec.FileAccess{Dir: root}, what: "The files to import under " + dir, split: split}
	texts := map[string]string{}
	for _, p := range files {
		src, err := rd.file(filepath.Join(root, p))
		if err != nil {
			return nil, skipped, err
		}
		b.s.sources[filepath.Join(dir, p)] = src
		if err := b.s.checkText(p, src); err != nil {
			return nil, skipped, err
		}
		texts[p] = string(src)
	}
	objects, more, err := b.objectRoots(files, texts)
	skipped = append(skipped, more...)
	if err != nil {
		return nil, skipped, err
	}
	convos := b.parse(files, texts, objects)
	if len(convos) == 0 {
		return nil, skipped, fmt.Errorf("no Botium convos in %s: nlutest import botium reads *.convo.txt files and convos in *.json and *.yml files", dir)
	}
	for _, c := range convos {
		b.s.convos = append(b.s.convos, b.convo(c))
		if b.s.exp.fail != nil {
			return nil, skipped, b.s.inputError(b.s.exp.fail)
		}
	}
	b.materials()
	res, _, err = b.s.result(f, withTracker(botiumTarget, f))
	return res, skipped, err
}

// parse reads the convos of every file: utterances first, since a convo
// line naming a list is a reference to it.
func (b *botium) parse(files []string, texts map[string]string, objects map[string]*yaml.Node) []*bConvo {
	for _, p := range files {
		switch {
		case strings.HasSuffix(p, ".utterances.txt"):
			name, vals := parseUtterancesTxt(texts[p])
			b.addUtterances(p, 1, name, vals)
		case objects[p] != nil:
			b.objectUtterances(p, objects[p])
		}
	}
	names := map[string]bool{}
	for n := range b.utter {
		names[n] = true
	}
	var convos []*bConvo
	for _, p := range files {
		switch {
		case strings.HasSuffix(p, ".pconvo.txt"):
			b.addPartial(parseConvoTxt(p, texts[p], names))
		case strings.HasSuffix(p, ".convo.txt"):
			convos = append(convos, parseConvoTxt(p, texts[p], names))
		case objects[p] != nil:
			cs, ps := b.objectConvos(p, objects[p], names)
			for _, pc := range ps {
				b.addPartial(pc)
			}
			convos = append(convos, cs...)
		}
	}
	return convos
}

// isBotiumFile reports whether a file's name is one Botium reads.
func isBotiumFile(name string) bool {
	return strings.HasSuffix(name, ".convo.txt") || strings.HasSuffix(name, ".pconvo.txt") || strings.HasSuffix(name, ".utterances.txt") || isObjectFile(name)
}

func isObjectFile(p string) bool {
	return strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")
}

func (b *botium) addUtterances(file string, line int, name string, vals []string) {
	if name == "" {
		b.s.problem(file, line, "Utterance list without a name", "The first line of a Botium utterances file is the list's name; add one, or remove the file.")
		return
	}
	if old, dup := b.utter[name]; dup && !slices.Equal(old, vals) {
		b.s.problem(file, line, "Duplicate utterance list", "Another file already defines the utterance list %q; Botium would use one of them. Rename or merge the lists.", name)
		return
	}
	b.utter[name] = vals
}

func (b *botium) addPartial(c *bConvo) {
	if _, dup := b.partials[c.name]; dup {
		b.s.problem(c.file, c.line, "Duplicate partial convo", "Another file already defines the partial convo %q; rename one of them.", c.name)
		return
	}
	b.partials[c.name] = c
}

// resolve replaces each argument naming an utterance list by its
// utterances, charging them to the expansion budget (the line at which
// they are used says where the import stops when it is spent).
func (b *botium) resolve(args []string, file string, line int) []string {
	var out []string
	for _, a := range args {
		if vals, ok := b.utter[a]; ok {
			n := 0
			for _, v := range vals {
				n += len(v)
			}
			if !b.s.spend(len(vals), n, b.s.rangeAt(file, line, 1), fmt.Sprintf("The utterance list %q used here", a)) {
				return out
			}
			out = append(out, vals...)
			continue
		}
		out = append(out, a)
	}
	return out
}

// untranslated records a step with no nlutest form: a diagnostic at its
// line, and a comment in the written suite (seen with --partial).
func (b *botium) untranslated(c *convo, t *turn, file string, line int, raw, why string) {
	b.s.problem(file, line, "Untranslatable Botium step",
		"%q cannot be translated: %s. "+partialHint, strings.TrimSpace(raw), why)
	note := fmt.Sprintf("UNTRANSLATED %s:%d %s (%s)", file, line, strings.TrimSpace(raw), why)
	if t != nil {
		t.comments = append(t.comments, note)
	} else {
		c.comments = append(c.comments, note)
	}
}

// convo translates one convo: its includes inlined, each #me a turn, each
// #bot's checks on the turn before it (or a bot_first turn).
func (b *botium) convo(bc *bConvo) *convo {
	c := &convo{name: bc.name, description: bc.description, file: bc.file, line: bc.line}
	if c.name == "" {
		c.name = strings.TrimSuffix(filepath.Base(bc.file), ".convo.txt")
	}
	var cur *turn
	var expanded []*bStep
	b.expand(c, bc.steps, nil, &expanded)
	for _, st := range expanded {
		switch st.sender {
		case "me":
			if t := b.meTurn(c, st); t != nil {
				cur = t
				c.turns = append(c.turns, t)
			}
		case "bot":
			if cur == nil {
				if !b.f.BotFirst {
					b.untranslated(c, nil, st.file, st.line, "#bot before any #me", "this nlutest has no bot_first turns")
					continue
				}
				cur = &turn{botFirst: true, line: st.line}
				c.turns = append(c.turns, cur)
			}
			b.botChecks(c, cur, st)
		default: // begin, end: logic hooks run around the convo
			for _, it := range st.items {
				b.untranslated(c, nil, st.file, it.line, it.raw, "logic hooks of a #"+st.sender+" section have no nlutest equivalent")
			}
			if st.hasText {
				b.untranslated(c, nil, st.file, st.textLine, st.text, "#"+st.sender+" sections hold logic hooks, not text")
			}
		}
	}
	if len(c.turns) == 0 {
		b.s.problem(bc.file, bc.line, "Convo without a turn", "The convo %q sends nothing to the bot, so there is no conversation to import. Add a #me section or remove the convo"+skipHint, c.name)
	}
	return c
}

// expand inlines partial convos: #include sections and INCLUDE hooks.
// expand appends steps to *out with every include inlined, and reports
// false once the import's copy budget is spent. One output slice and one
// include stack serve the whole walk: returning and re-appending a slice
// per level, and copying the stack per include, made refusing an include
// bomb allocate its depth times over.
func (b *botium) expand(c *convo, steps []*bStep, stack []string, out *[]*bStep) bool {
	for _, st := range steps {
		var names []string
		line := st.line
		if st.sender == "include" {
			if st.channel != "" {
				names = append(names, st.channel)
			}
			for _, l := range strings.Split(st.text, "\n") {
				if strings.TrimSpace(l) != "" {
					names = append(names, strings.TrimSpace(l))
				}
			}
		} else {
			keep := *st
			keep.items = nil
			for _, it := range st.items {
				if it.kind == "hook" && it.name == "INCLUDE" && len(it.args) == 1 {
					names, line = append(names, it.args[0]), it.line
					continue
				}
				keep.items = append(keep.items, it)
			}
			*out = append(*out, &keep)
		}
		for _, n := range names {
			if i := indexOf(stack, n); i >= 0 {
				cycle := append(append([]string(nil), stack[i:]...), n)
				b.s.problem(st.file, line, "Circular partial convo", "The partial convo %q includes itself (%s); break the cycle.", n, strings.Join(cycle, " → "))
				continue
			}
			p, ok := b.partials[n]
			if !ok {
				b.s.problem(st.file, line, "Unknown partial convo", "No *.pconvo.txt (or partialConvos entry) is named %q; add it to the directory or fix the name.", n)
				continue
			}
			if nodes, bytes := stepsSize(p.steps); !b.s.spend(nodes, bytes, b.s.rangeAt(st.file, line, 1), fmt.Sprintf("Including the partial convo %q here", n)) {
				return false
			}
			if !b.expand(c, p.steps, append(stack, n), out) {
				return false
			}
		}
	}
	return true
}

// stepsSize is what inlining steps copies: a node for each step and each
// of its lines, and their text.
func stepsSize(steps []*bStep) (nodes, bytes int) {
	for _, st := range steps {
		nodes += 1 + len(st.items)
		bytes += len(st.text)
		for _, it := range st.items {
			bytes += len(it.raw)
		}
	}
	return nodes, bytes
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// meTurn makes the turn of a #me section, or nil when it sends nothing.
func (b *botium) meTurn(c *convo, st *bStep) *turn {
	t := &turn{line: st.line}
	user, have := "", false
	for _, it := range st.items {
		if it.kind == "input" && it.name == "BUTTON" && len(it.args) >= 1 && it.args[0] != "" && !have {
			user, have = literal(it.args[0]), true
			t.comments = append(t.comments, fmt.Sprintf("%s:%d BUTTON %s: the button's payload is sent as the message", st.file, it.line, it.args[0]))
			continue
		}
		b.untranslated(c, t, st.file, it.line, it.raw, "the #me line "+it.name+" has no nlutest equivalent")
	}
	if st.hasText {
		switch {
		case have:
			b.untranslated(c, t, st.file, st.textLine, st.text, "a #me section sends either a button or text")
		case st.not || st.optional:
			b.untranslated(c, t, st.file, st.textLine, st.rawText, "a negated or optional user message has no meaning in nlutest")
		case hasMemoryVar(st.text):
			b.untranslated(c, t, st.file, st.textLine, st.text, "scripting memory variables ($name) have no nlutest equivalent")
		case isJSON(st.text):
			b.untranslated(c, t, st.file, st.textLine, st.text, "a JSON message is structured data, which nlutest's user text is not")
		default:
			user, have = b.userText(st.text), true
		}
	}
	if !have {
		if len(t.comments) > 0 && len(c.turns) > 0 {
			prev := c.turns[len(c.turns)-1]
			prev.comments = append(prev.comments, t.comments...)
		} else if len(t.comments) > 0 {
			c.comments = append(c.comments, t.comments...)
		}
		return nil
	}
	t.user = user
	return t
}

// userText is a #me text as a user attribute: an utterance list's name
// becomes a placeholder of the materials block made from it.
func (b *botium) userText(text string) string {
	if _, ok := b.utter[text]; ok {
		b.used[text] = true
		return quote("{" + materialName(text) + "}")
	}
	return literal(text)
}

func materialName(n string) string {
	return strings.NewReplacer("{", "_", "}", "_", "#", "_").Replace(n)
}

// botChecks adds a #bot section's text and asserters to the turn.
func (b *botium) botChecks(c *convo, t *turn, st *bStep) {
	if st.hasText {
		origin := fmt.Sprintf("Botium %s:%d: %s", st.file, st.textLine, firstLine(st.text))
		switch {
		case st.optional:
			b.untranslated(c, t, st.file, st.textLine, st.rawText, "optional bot messages have no nlutest equivalent")
		case hasMemoryVar(st.text):
			b.untranslated(c, t, st.file, st.textLine, st.text, "scripting memory variables ($name) have no nlutest equivalent")
		case isJSON(st.text):
			b.untranslated(c, t, st.file, st.textLine, st.text, "Botium compares a JSON message with the bot's structured message, which reply checks do not read")
		default:
			ck, why := textCheck(b.resolve([]string{st.text}, st.file, st.textLine), st.not, origin)
			if why != "" {
				b.untranslated(c, t, st.file, st.textLine, st.text, why)
			} else {
				t.checks = append(t.checks, ck)
			}
		}
	}
	for _, it := range st.items {
		b.botItem(c, t, st, it)
	}
}

func (b *botium) botItem(c *convo, t *turn, st *bStep, it bItem) {
	origin := fmt.Sprintf("Botium %s:%d: %s", st.file, it.line, strings.TrimSpace(it.raw))
	switch {
	case it.optional:
		b.untranslated(c, t, st.file, it.line, it.raw, "optional asserters have no nlutest equivalent")
	case it.kind == "asserter" && strings.HasPrefix(it.name, "TEXT") && it.name != "TEXT_WER":
		cs, why := b.asserterCheck(it, st.file, origin)
		if why == "no reply check" {
			why = "the asserter " + it.name + " has no reply check"
		}
		if why != "" {
			b.untranslated(c, t, st.file, it.line, it.raw, why)
			return
		}
		t.checks = append(t.checks, cs...)
	case it.kind == "asserter" && (strings.HasPrefix(it.name, "INTENT") || strings.HasPrefix(it.name, "ENTIT")):
		if !b.f.State {
			b.untranslated(c, t, st.file, it.line, it.raw, "this nlutest has no state expectations to read the Rasa tracker with")
			return
		}
		ex, as, why := nluCheck(it)
		if why == "no nlutest equivalent" {
			why = "the asserter " + it.name + " has no nlutest equivalent"
		}
		if why != "" {
			b.untranslated(c, t, st.file, it.line, it.raw, why)
			return
		}
		t.expect = append(t.expect, ex...)
		t.asserts = append(t.asserts, as...)
	case it.kind == "unknown":
		b.untranslated(c, t, st.file, it.line, it.raw, "it reads as a custom asserter or logic hook, which nlutest cannot run")
	default:
		b.untranslated(c, t, st.file, it.line, it.raw, "the "+it.kind+" "+it.name+" has no nlutest equivalent")
	}
}

// isJSON reports whether a message is a JSON object or array, which
// Botium reads as a structured message (helper.js: isJSON → sourceData).
func isJSON(s string) bool {
	s = strings.TrimSpace(s)
	return (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && json.Valid([]byte(s))
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// materials adds a materials block for every utterance list a #me uses.
func (b *botium) materials() {
	var names []string
	for n := range b.used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.s.materials = append(b.s.materials, material{name: materialName(n), values: b.utter[n]})
	}
}

// suiteName names the suite after the directory imported.
func suiteName(p string) string {
	n := filepath.Base(filepath.Clean(p))
	n = strings.TrimSuffix(n, filepath.Ext(n))
	if n == "" || n == "." || n == "/" {
		return "imported"
	}
	return n
}
