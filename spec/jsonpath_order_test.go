package spec

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// jsonpath(value, "$.o.*") lists object members in one order (key order,
// the order of the value's JSON), not Go's map order.
func TestJSONPathFuncOrder(t *testing.T) {
	members := map[string]cty.Value{}
	for _, k := range []string{"e", "b", "d", "a", "c", "f", "h", "g"} {
		members[k] = cty.StringVal(k)
	}
	v := cty.ObjectVal(map[string]cty.Value{
		"o": cty.ObjectVal(members),
		"l": cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"n": cty.NumberIntVal(1), "x": cty.StringVal("甲")}), cty.ObjectVal(map[string]cty.Value{"n": cty.NumberIntVal(2), "x": cty.StringVal("乙")})}),
	})
	tests := []struct{ path, want string }{
		{"$.o.*", `["a","b","c","d","e","f","g","h"]`},
		{"$..x", `["甲","乙"]`},
		{"$.l[?(@.n == 2)].x", `["乙"]`},
		{"$.l[0]", `[{"n":1,"x":"甲"}]`},
	}
	for _, tt := range tests {
		for i := range 50 {
			got, err := JSONPathFunc.Call([]cty.Value{v, cty.StringVal(tt.path)})
			if err != nil {
				t.Fatal(err)
			}
			if s := jsonOf(t, got); s != tt.want {
				t.Fatalf("%s, call %d: %s, want %s", tt.path, i, s, tt.want)
			}
		}
	}
}

func jsonOf(t *testing.T, v cty.Value) string {
	t.Helper()
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
