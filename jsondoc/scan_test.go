package jsondoc

import (
	"encoding/json"
	"testing"
)

// Unquote decodes every string token as encoding/json does, escapes,
// surrogate pairs, lone surrogates and invalid UTF-8 included, and refuses
// what is not a string token.
func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, tok := range []string{
		`""`, `"北京"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u4e2d\u6587"`, `"\ud83d\ude00"`, `"\ud83d x"`,
		`"\udc00"`, "\"bad \xff\xfe utf-8\"", "\"\xe4\xb8\"", `"\u00e9\u2028"`, `"tab\tinside"`,
	} {
		var want string
		wantErr := json.Unmarshal([]byte(tok), &want)
		got, err := Unquote([]byte(tok))
		if (err != nil) != (wantErr != nil) || got != want {
			t.Errorf("Unquote(%q) = %q, %v; encoding/json: %q, %v", tok, got, err, want, wantErr)
		}
	}
	for _, bad := range []string{``, `"`, `abc`, `"\x"`, `"\u12"`, `"a"b"`} {
		if _, err := Unquote([]byte(bad)); err == nil {
			t.Errorf("Unquote(%q) accepted it", bad)
		}
	}
}

// Members walks an object's members with their raw values, and ErrStop
// ends the walk without being wrapped.
func TestMembers(t *testing.T) {
	var keys, vals []string
	err := Members([]byte(` {"a": [1, {"x": "}"}], "b\"": "v", "c": null} `), func(k, v []byte) error {
		keys, vals = append(keys, string(k)), append(vals, string(v))
		return nil
	})
	if err != nil || len(keys) != 3 || keys[1] != `b"` || vals[0] != `[1, {"x": "}"}]` || vals[2] != "null" {
		t.Errorf("Members: %q %q %v", keys, vals, err)
	}
	n := 0
	err = Members([]byte(`{"a":1,"b":2}`), func(k, v []byte) error { n++; return ErrStop })
	if err != ErrStop || n != 1 {
		t.Errorf("ErrStop: %v after %d members", err, n)
	}
}
