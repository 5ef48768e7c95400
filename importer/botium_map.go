package importer

import (
	"fmt"
	"math"
	"regexp"
	"strings"
)

// textCheck translates expected bot text, with Botium's default matching
// mode wildcardIgnoreCase (Defaults.js SCRIPTING_MATCHING_MODE): the reply
// contains the text, any case, `*` standing for any run of characters.
// A text naming an utterance list matches any of its utterances.
func textCheck(values []string, not bool, origin string) (check, string) {
	wild := false
	for _, v := range values {
		wild = wild || strings.ContainsAny(v, "*\n")
	}
	if !wild {
		switch {
		case not:
			return check{kind: "not_contains", values: values, ignoreCase: true, origin: origin}, ""
		case len(values) == 1:
			return check{kind: "contains", values: values, ignoreCase: true, origin: origin}, ""
		}
		return check{kind: "contains_any", values: values, ignoreCase: true, origin: origin}, ""
	}
	if not {
		return check{}, "a negated text with a * wildcard has no reply check (reply checks have not_contains, not a negated pattern)"
	}
	return check{kind: "matches", values: []string{wildcardRE(values, false)}, ignoreCase: true, origin: origin}, ""
}

// wildcardRE turns Botium wildcard texts into one RE2 pattern: * is any
// run of characters, white space any run of white space; exact anchors it.
func wildcardRE(values []string, exact bool) string {
	alts := make([]string, len(values))
	ws := regexp.MustCompile(`\s+`)
	for i, v := range values {
		parts := strings.Split(v, "*")
		for j, p := range parts {
			words := ws.Split(p, -1)
			for k, w := range words {
				words[k] = regexp.QuoteMeta(w)
			}
			parts[j] = strings.Join(words, `\s+`)
		}
		alts[i] = strings.Join(parts, ".*")
	}
	re := strings.Join(alts, "|")
	if len(alts) > 1 {
		re = "(?:" + re + ")"
	}
	if exact {
		re = "^" + re + "$"
	}
	return "(?s)" + re
}

// asserterCheck translates one Botium text asserter into reply checks.
func (b *botium) asserterCheck(it bItem, file, origin string) ([]check, string) {
	base := strings.TrimSuffix(it.name, "_IC")
	ic := strings.HasSuffix(it.name, "_IC")
	vals := b.resolve(it.args, file, it.line)
	mk := func(kind string, v ...string) check {
		return check{kind: kind, values: v, ignoreCase: ic, origin: origin}
	}
	switch base {
	case "TEXT_CONTAINS_ANY":
		if it.not {
			return []check{mk("not_contains", vals...)}, ""
		}
		return []check{mk("contains_any", vals...)}, ""
	case "TEXT_CONTAINS_ALL":
		if it.not {
			return nil, "a negated TEXT_CONTAINS_ALL (not every text present) has no reply check"
		}
		return []check{mk("contains", vals...)}, ""
	case "TEXT", "TEXT_EQUALS":
		switch {
		case len(vals) == 0 && it.not:
			return []check{mk("equals", "")}, ""
		case len(vals) == 0:
			return []check{mk("matches", "(?s).")}, ""
		case it.not:
			return nil, "a negated " + base + " (the reply equals none of the texts) has no reply check"
		case len(vals) == 1:
			return []check{mk("equals", vals[0])}, ""
		}
		return []check{mk("one_of", vals...)}, ""
	case "TEXT_REGEXP_ANY", "TEXT_REGEXP_ALL":
		return regexpChecks(base, vals, it.not, mk)
	case "TEXT_WILDCARD_ANY", "TEXT_WILDCARD_ALL", "TEXT_WILDCARDEXACT_ANY", "TEXT_WILDCARDEXACT_ALL":
		if it.not {
			return nil, "a negated " + base + " has no reply check (reply checks have no negated pattern)"
		}
		exact := strings.Contains(base, "EXACT")
		if strings.HasSuffix(base, "_ANY") {
			return []check{mk("matches", wildcardRE(vals, exact))}, ""
		}
		var cs []check
		for _, v := range vals {
			cs = append(cs, mk("matches", wildcardRE([]string{v}, exact)))
		}
		return cs, ""
	}
	return nil, "no reply check"
}

func regexpChecks(base string, vals []string, not bool, mk func(string, ...string) check) ([]check, string) {
	if not {
		return nil, "a negated " + base + " has no reply check (reply checks have no negated pattern)"
	}
	for _, v := range vals {
		if _, err := regexp.Compile(v); err != nil {
			return nil, fmt.Sprintf("the JavaScript pattern %q is not RE2 (%s)", v, err)
		}
	}
	if base == "TEXT_REGEXP_ALL" {
		var cs []check
		for _, v := range vals {
			cs = append(cs, mk("matches", v))
		}
		return cs, ""
	}
	if len(vals) == 1 {
		return []check{mk("matches", vals[0])}, ""
	}
	return []check{mk("matches", "(?:"+strings.Join(vals, ")|(?:")+")")}, ""
}

// nluCheck translates Botium's NLU asserters into state expectations on
// the Rasa tracker's latest_message.
func nluCheck(it bItem) ([]expectation, []assertion, string) {
	if it.not {
		return nil, nil, "a negated " + it.name + " has no expectation form"
	}
	switch it.name {
	case "INTENT":
		if len(it.args) != 1 {
			return nil, nil, "INTENT takes one intent name"
		}
		return []expectation{{path: "state:$.latest_message.intent.name", value: it.args[0]}}, nil, ""
	case "ENTITIES", "ENTITY_VALUES":
		if len(it.args) > 0 && strings.HasPrefix(it.args[len(it.args)-1], "..") {
			return nil, nil, it.name + " with .. (more entities allowed) has no expectation form"
		}
		key := "entity"
		if it.name == "ENTITY_VALUES" {
			key = "value"
		}
		vals := make([]any, len(it.args))
		for i, a := range it.args {
			vals[i] = a
		}
		return []expectation{{path: "state:$.latest_message.entities[*]." + key, value: vals}}, nil, ""
	case "INTENT_CONFIDENCE":
		if len(it.args) != 1 {
			return nil, nil, "INTENT_CONFIDENCE takes one minimum, in percent"
		}
		var pct float64
		if _, err := fmt.Sscanf(it.args[0], "%g", &pct); err != nil || math.IsNaN(pct) || math.IsInf(pct, 0) {
			return nil, nil, "INTENT_CONFIDENCE takes one minimum, in percent"
		}
		return nil, []assertion{{
			condition: fmt.Sprintf("state.latest_message.intent.confidence >= %g", pct/100),
			message:   fmt.Sprintf("INTENT_CONFIDENCE %s: the intent's confidence is at least %s%%", it.args[0], it.args[0]),
		}}, ""
	}
	return nil, nil, "no nlutest equivalent"
}
