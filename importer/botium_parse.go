package importer

import (
	"regexp"
	"strings"
)

// Botium's convo text format (botium-core src/scripting/CompilerTxt.js and
// helper.js linesToConvoStep): the first lines up to the first section
// line are the convo's name and description; a section starts at a line
// "#me", "#bot", "#begin", "#end" or "#include" (optionally followed by a
// channel, or for #include by a partial convo's name).

// botiumSenders are the section names Botium knows (helper.js validSenders).
var botiumSenders = map[string]bool{"begin": true, "include": true, "me": true, "bot": true, "end": true}

// botiumAsserters are Botium's default asserters (LogicHookConsts.js).
var botiumAsserters = map[string]bool{}

// botiumHooks are Botium's default logic hooks; botiumInputs its user inputs.
var botiumHooks, botiumInputs = map[string]bool{}, map[string]bool{"BUTTON": true, "MEDIA": true, "FORM": true}

func init() {
	for _, n := range strings.Fields(`BUTTONS BUTTONS_COUNT BUTTONS_COUNT_REC MEDIA MEDIA_COUNT MEDIA_COUNT_REC CARDS
		CARDS_COUNT CARDS_COUNT_REC PAUSE_ASSERTER JSON_PATH JSON_PATH_COUNT RESPONSE_LENGTH FORMS ENTITIES ENTITY_VALUES
		ENTITY_CONTENT INTENT INTENT_UNIQUE INTENT_CONFIDENCE TEXT_CONTAINS_ANY TEXT_CONTAINS_ANY_IC TEXT_CONTAINS_ALL
		TEXT_CONTAINS_ALL_IC TEXT_WILDCARD_ANY TEXT_WILDCARD_ANY_IC TEXT_WILDCARD_ALL TEXT_WILDCARD_ALL_IC
		TEXT_WILDCARDEXACT_ANY TEXT_WILDCARDEXACT_ANY_IC TEXT_WILDCARDEXACT_ALL TEXT_WILDCARDEXACT_ALL_IC TEXT_REGEXP_ANY
		TEXT_REGEXP_ANY_IC TEXT_REGEXP_ALL TEXT_REGEXP_ALL_IC TEXT_EQUALS TEXT_EQUALS_IC TEXT TEXT_IC TEXT_WER
		BOT_CONSUMED BOT_UNCONSUMED_COUNT`) {
		botiumAsserters[n] = true
	}
	for _, n := range strings.Fields(`PAUSE WAITFORBOT SET_SCRIPTING_MEMORY CLEAR_SCRIPTING_MEMORY ASSIGN_SCRIPTING_MEMORY
		UPDATE_CUSTOM SKIP_BOT_UNCONSUMED INCLUDE CONDITIONAL_STEP_TIME_BASED CONDITIONAL_STEP_BUSINESS_HOURS
		CONDITIONAL_STEP_CAPABILITY_VALUE_BASED CONDITIONAL_STEP_JSON_PATH_BASED CONVO_STEP_PARAMETERS ORDERED_LIST_TO_BUTTON`) {
		botiumHooks[n] = true
	}
}

// bStep is one section of a convo.
type bStep struct {
	sender, channel string
	file            string
	line            int // the section line
	items           []bItem
	text            string // the message text, lines joined by "\n"; "" with hasText false for none
	rawText         string // the text as written, with its ? and ! marks
	hasText         bool
	textLine        int
	not, optional   bool
}

// bItem is one asserter, logic hook or user input line of a step.
type bItem struct {
	kind          string // asserter, hook, input, unknown
	name          string
	args          []string
	not, optional bool
	line          int
	raw           string
}

// bConvo is one parsed convo or partial convo.
type bConvo struct {
	name, description string
	file              string
	line              int
	steps             []*bStep
}

// upperWord is how a custom asserter or logic hook is written: a word of
// capitals, digits and underscores followed by arguments.
var upperWord = regexp.MustCompile(`^[A-Z][A-Z0-9_]{2,}$`)

// parseConvoTxt reads a .convo.txt or .pconvo.txt file.
func parseConvoTxt(file string, src string, utterances map[string]bool) *bConvo {
	lines := regexp.MustCompile(`\r\n|\r|\n`).Split(strings.TrimPrefix(src, "\ufeff"), -1)
	c := &bConvo{file: file, line: 1}
	var header []string
	var cur *bStep
	var body []string
	var bodyStart int
	flush := func() {
		if cur != nil {
			fillStep(cur, body, bodyStart, utterances)
			c.steps = append(c.steps, cur)
		}
	}
	for i, l := range lines {
		if s, ch, ok := sectionLine(l); ok {
			flush()
			cur = &bStep{sender: s, channel: ch, file: file, line: i + 1}
			body, bodyStart = nil, i+2
			continue
		}
		if cur == nil {
			header = append(header, l)
		} else {
			body = append(body, l)
		}
	}
	flush()
	if len(header) > 0 {
		c.name = strings.TrimSpace(header[0])
		c.description = strings.TrimSpace(strings.Join(header[1:], "\n"))
	}
	return c
}

func sectionLine(l string) (sender, channel string, ok bool) {
	if !strings.HasPrefix(l, "#") {
		return "", "", false
	}
	rest := strings.TrimSpace(l[1:])
	sender, channel, _ = strings.Cut(rest, " ")
	if !botiumSenders[strings.Split(l[1:], " ")[0]] {
		return "", "", false
	}
	return sender, strings.TrimSpace(channel), true
}

// fillStep sorts a section's lines into asserters, logic hooks, user
// inputs and message text, as helper.js linesToConvoStep does.
func fillStep(st *bStep, lines []string, first int, utterances map[string]bool) {
	var text []string
	textStart := 0
	for i, raw := range lines {
		it := bItem{line: first + i, raw: raw}
		logic := raw
		if strings.HasPrefix(logic, "?") {
			it.optional = !strings.HasPrefix(logic, "??")
			logic = logic[1:]
		}
		if strings.HasPrefix(logic, "!") {
			it.not = !strings.HasPrefix(logic, "!!")
			logic = logic[1:]
		}
		name, argText, hasArgs := strings.Cut(logic, " ")
		switch {
		case st.sender != "me" && botiumAsserters[name]:
			it.kind = "asserter"
		case st.sender == "me" && botiumInputs[name]:
			it.kind = "input"
		case botiumHooks[name]:
			it.kind = "hook"
		case upperWord.MatchString(name) && hasArgs && !utterances[strings.TrimSpace(logic)]:
			it.kind = "unknown"
		}
		if it.kind != "" {
			it.name = name
			if hasArgs {
				it.args = splitArgs(argText)
			}
			st.items = append(st.items, it)
			continue
		}
		if len(text) == 0 && strings.TrimSpace(raw) == "" {
			continue
		}
		if len(text) == 0 {
			textStart = first + i
		}
		text = append(text, raw)
	}
	for len(text) > 0 && strings.TrimSpace(text[len(text)-1]) == "" {
		text = text[:len(text)-1]
	}
	if len(text) == 0 {
		return
	}
	st.hasText, st.textLine = true, textStart
	st.rawText = strings.Join(text, "\n")
	t := text[0]
	if strings.HasPrefix(t, "?") {
		st.optional = !strings.HasPrefix(t, "??")
		t = t[1:]
	}
	if strings.HasPrefix(t, "!") {
		st.not = !strings.HasPrefix(t, "!!")
		t = t[1:]
	}
	text[0] = t
	st.text = strings.TrimRight(strings.Join(text, "\n"), "\n\t\r")
}

// splitArgs splits asserter arguments at | (\| is a literal bar), trimmed.
func splitArgs(s string) []string {
	const esc = "\x00ESCBAR\x00"
	s = strings.ReplaceAll(s, `\|`, esc)
	var out []string
	for _, a := range strings.Split(s, "|") {
		out = append(out, strings.TrimSpace(strings.ReplaceAll(a, esc, "|")))
	}
	return out
}

// parseUtterancesTxt reads a .utterances.txt file: its name, then one
// utterance a line.
func parseUtterancesTxt(src string) (name string, values []string) {
	lines := regexp.MustCompile(`\r\n|\r|\n`).Split(strings.TrimPrefix(src, "\ufeff"), -1)
	if len(lines) == 0 {
		return "", nil
	}
	name = strings.TrimSpace(lines[0])
	for _, l := range lines[1:] {
		l = strings.TrimRight(l, "\n\t\r")
		if strings.TrimSpace(l) != "" {
			values = append(values, l)
		}
	}
	return name, values
}
