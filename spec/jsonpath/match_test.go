package jsonpath

import "testing"

// Match tells whether a pattern (wildcards, descent, unions, slices,
// filters) covers a concrete path as a whole; MatchPrefix finds the
// shortest prefix of the path it covers: how a dimension's items and a
// schema's ignore list find the fields of a response, Chinese keys
// included.
func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		match         bool
		prefix        int // MatchPrefix's length, -1 when none
	}{
		{"$.槽位.城市", "$.槽位.城市", true, 3},
		{"$.槽位.城市", "$.槽位.日期", false, -1},
		{"$.槽位.*", "$.槽位.城市", true, 3},
		{"$.槽位", "$.槽位.城市", false, 2},
		{"$..城市", "$.data[0].槽位.城市", true, 5},
		{"$..城市", "$.data[0].槽位.日期", false, -1},
		{"$.data[*].intent", "$.data[3].intent", true, 4},
		{"$.data[-1].intent", "$.data[3].intent", true, 4},
		{"$.data[0].intent", "$.data[3].intent", false, -1},
		{"$.data[0,2]", "$.data[2]", true, 3},
		{"$.data[0,2]", "$.data[1]", false, -1},
		{"$['意图','槽位']", "$.槽位", true, 2},
		{"$.data[1:3]", "$.data[7]", true, 3},
		{"$.data[1:3]", "$.data.x", false, -1},
		{"$.entities[?(@.entity == '城市')].value", "$.entities[4].value", true, 4},
		{"$.entities[?(@.entity == '城市')].value", "$.entities.value", false, -1},
		{"$..[0]", "$.a.b[0]", true, 4},
		{"$.a", "$.a.b.c", false, 2},
	}
	for _, tt := range tests {
		pat, _, err := Compile(tt.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		path, _, err := Compile(tt.path)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if got := Match(pat, path); got != tt.match {
			t.Errorf("Match(%s, %s) = %v, want %v", tt.pattern, tt.path, got, tt.match)
		}
		n, ok := MatchPrefix(pat, path)
		if !ok {
			n = -1
		}
		if n != tt.prefix {
			t.Errorf("MatchPrefix(%s, %s) = %d, want %d", tt.pattern, tt.path, n, tt.prefix)
		}
	}
}
