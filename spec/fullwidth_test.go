package spec

import (
	"strings"
	"testing"
)

// Full-width braces (an input-method slip) are named, not sent literally
// or reported as an unterminated placeholder.
func TestFullWidthBracesInPlaceholders(t *testing.T) {
	tests := []struct{ text, want string }{
		{"查｛城市｝天气", "full-width braces ｛｝"},
		{"查{城市｝天气", "full-width ｝ (U+FF5D"},
		{"查｛城市}天气", "full-width ｛ (U+FF5B"},
		{"查{城市｝的{日期}天气", "full-width ｝ (U+FF5D"},
	}
	for _, tt := range tests {
		_, _, err := ParsePlaceholders(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.text, err, tt.want)
		}
	}
	for _, ok := range []string{"查{城市}天气", "｛只有左", "右｝", "{{城市}}"} {
		if _, _, err := ParsePlaceholders(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// A material_levels name that no value has is flagged (a warning: the
// template still loads, and generates no case) with a suggestion.
func TestUnknownMaterialLevel(t *testing.T) {
	_, sums, out := loadText(t, `suite "x" {}
materials "城市" {
  level  = "M1"
  values = ["北京"]
}
template "t" {
  text            = "{城市}"
  material_levels = ["m1"]
}
`)
	if !strings.Contains(sums, "Unknown material level") || !strings.Contains(string(out), `Did you mean "M1"?`) {
		t.Errorf("%s\n%s", sums, out)
	}
}

// The same check holds for every template-like block: conversations and
// memory tests read their generation settings with the template's code.
func TestUnknownMaterialLevelInConversationAndMemory(t *testing.T) {
	for name, block := range map[string]string{
		"conversation": `conversation "c" {
  material_levels = ["m1"]
  turn { user = "去{城市}" }
}`,
		"memory": `memory "m" {
  material_levels = ["m1"]
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪里？"
    expect = "{城市}"
  }
  distance = [0]
}`,
	} {
		_, sums, out := loadText(t, `suite "x" {}
materials "城市" {
  level  = "M1"
  values = ["北京"]
}
`+block+"\n")
		if !strings.Contains(sums, "Unknown material level") || !strings.Contains(string(out), `Did you mean "M1"?`) {
			t.Errorf("%s: %s\n%s", name, sums, out)
		}
	}
}

// validate catches calls to unknown functions in every expression,
// target requests included (they failed only when a case was called).
func TestUnknownFunctionsAtLoad(t *testing.T) {
	_, sums, out := loadText(t, `suite "x" {}
target "t" {
  http {
    url  = "http://127.0.0.1:9"
    body = jsonencodee({ text = case.text })
  }
}
materials "m" { values = ["a"] }
template "t" {
  text = "{m}"
  assert {
    condition = lenght(response) > 0
  }
}
`)
	if strings.Count(sums, "Call to unknown function") != 2 || !strings.Contains(string(out), `Did you mean "jsonencode"?`) || !strings.Contains(string(out), `Did you mean "length"?`) {
		t.Errorf("%s\n%s", sums, out)
	}
}

// One full-width comma (or other IME punctuation) outside a string gives
// one diagnostic per line naming the character and the one to type, at
// its file:line:col, instead of HCL's invalid-character error followed by
// the parse errors it causes (issue 17, friction 11: one ， gave five).
func TestFullWidthPunctuationOneDiagnostic(t *testing.T) {
	tests := []struct {
		name, src string
		summary   string // the one diagnostic's summary
		at        string // its file:line:col suffix
	}{
		{"comma in a list", "suite \"x\" {}\nmaterials \"城市\" {\n  values = [\"北京\"，\"上海\"]\n}\n",
			"Full-width comma '，' — use ','", ":3:17:"},
		{"two commas on a line", "suite \"x\" {}\nmaterials \"城市\" {\n  values = [\"北京\"，\"上海\"，\"广州\"]\n}\n",
			"Full-width comma '，' — use ','", ":3:17:"},
		{"comma between arguments", "suite \"x\" {}\ntemplate \"查天气\" {\n  text = format(\"%s天气\"，\"北京\")\n}\n",
			"Full-width comma '，' — use ','", ":3:23:"},
		{"comma after an attribute", "suite \"x\" {}\ntemplate \"查天气\" {\n  text = \"查{城市}天气\"，\n  split = \"smoke\"\n}\n",
			"Full-width comma '，' — use ','", ":3:19:"},
		{"comma in a one-line block", "suite \"x\" {}\nthreshold \"准确率\" { condition = metrics.accuracy >= 0.9， severity = \"error\" }\n",
			"Full-width comma '，' — use ','", ":2:54:"},
		{"colon for equals", "suite \"x\" {}\ntemplate \"t\" {\n  text： \"查天气\"\n}\n",
			"Full-width colon '：' — use '='", ":3:7:"},
		{"curly quotes", "suite \"x\" {}\ntemplate \"t\" {\n  text = “查天气”\n}\n",
			"Curly quotes '“' and '”' — use '\"'", ":3:10:"},
		{"mixed", "suite \"x\" {}\ntemplate \"t\" {\n  text = format（\"%s\"，\"a\"）\n}\n",
			"Full-width punctuation — use ASCII", ":3:16:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, sums, out := loadText(t, tt.src)
			if sums != tt.summary {
				t.Errorf("summaries %q, want the one %q\n%s", sums, tt.summary, out)
			}
			if !strings.Contains(string(out), FileSuffix+tt.at) {
				t.Errorf("no %s in\n%s", tt.at, out)
			}
			if !strings.Contains(string(out), "(U+FF") && !strings.Contains(string(out), "(U+201") {
				t.Errorf("the character is not named in\n%s", out)
			}
		})
	}
	// Full-width punctuation inside strings stays text.
	if _, sums, out := loadText(t, "suite \"x\" {}\nmaterials \"城市\" {\n  values = [\"北京，上海：（）“”\"]\n}\n"); sums != "" {
		t.Errorf("punctuation in a string: %s\n%s", sums, out)
	}
}
