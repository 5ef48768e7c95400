package jsonpath

import (
	"encoding/json"
	"testing"

	"github.com/ohler55/ojg/jp"
)

// Ordered makes JSONPath list an object's members in key order every
// time (a Go map would give a new order each run), at any depth, and its
// JSON keeps that order; members set or removed later keep it too.
func TestOrdered(t *testing.T) {
	const doc = `{"o":{"e":"e","b":"b","d":"d","a":"a","c":"c","h":"h","g":"g","f":"f"},"l":[{"x":"甲","n":1},{"n":2,"x":"乙"}]}`
	tests := []struct{ path, want string }{
		{"$.o.*", `["a","b","c","d","e","f","g","h"]`},
		{"$..x", `["甲","乙"]`},
		{"$.l[?(@.n == 2)].x", `["乙"]`},
		{"$.l[0]", `[{"n":1,"x":"甲"}]`},
		{"$.*", `[[{"n":1,"x":"甲"},{"n":2,"x":"乙"}],{"a":"a","b":"b","c":"c","d":"d","e":"e","f":"f","g":"g","h":"h"}]`},
	}
	for _, tt := range tests {
		x := jp.MustParseString(tt.path)
		for i := range 50 {
			var v any
			if err := json.Unmarshal([]byte(doc), &v); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(x.Get(Ordered(v)))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Fatalf("%s, run %d: %s, want %s", tt.path, i, b, tt.want)
			}
		}
	}

	o := Ordered(map[string]any{"乙": 2.0, "甲": 1.0}).(*orderedObject)
	o.SetValueForKey("丙", 3.0)
	o.SetValueForKey("甲", 0.0)
	o.RemoveValueForKey("乙")
	o.RemoveValueForKey("无")
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"丙":3,"甲":0}`; string(b) != want {
		t.Errorf("after set and remove: %s, want %s", b, want)
	}
}
