package coverage

import "testing"

// The state paths an expectation may use, as written in suites (bracket
// and dot forms, Chinese names, wildcards and indexes), and paths that
// name no item — none panics.
func TestClassifyStatePaths(t *testing.T) {
	ix := &index{}
	for path, want := range map[string]pathInfo{
		"state:$.latest_message.intent.name":         {class: pathIntent},
		"state:$.latest_message.entities":            {class: pathEntities},
		"state:$.latest_message.entities[*].entity":  {class: pathEntityTypes},
		"state:$.latest_message.entities[0].entity":  {class: pathEntityTypes},
		"state:$.latest_message.entities.[1].entity": {class: pathEntityTypes},
		"state:$.slots":                              {class: pathSlots},
		"state:$.slots.城市":                           {class: pathSlot, name: "城市"},
		"state:$.slots['出发城市']":                      {class: pathSlot, name: "出发城市"},
		`state:$.slots["date"]`:                      {class: pathSlot, name: "date"},
		"state:$.latest_action_name":                 {class: pathAction},
		"state:$.active_loop.name":                   {class: pathForm},
		"state:$":                                    {},
		"state:$.slots[0]":                           {},
		"state:$.slots.城市.value":                     {},
		"state:$..name":                              {},
		"state:$.latest_message.entities[*].value":   {},
		"$.latest_message.intent.name":               {}, // a response path: only the schema's dimensions count
		"state:$.latest_message.intent[?(@.x == 1)]": {},
		"state:不是路径":                                 {},
	} {
		if got := ix.classifyNew(path); got != want {
			t.Errorf("%s: %+v, want %+v", path, got, want)
		}
	}
}
