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
