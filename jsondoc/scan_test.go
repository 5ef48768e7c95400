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

// memberKey's one-pass read of plain keys (plainKey) gives what the
// general read (scannedKey) gives — key, value start, error — for keys
// cut from a record and its Chinese slot names, escaped, with control
// characters, invalid UTF-8, spaces before the colon, no colon, no closing
// quote, and every prefix of each.
func TestMemberKeyMatchesScannedKey(t *testing.T) {
	keys := []string{
		`"id":"x"`, `"source_kind" : 1`, `"手机号11位":{}`, `"伴随关系"`, `"a\"b":1`, `"\u57ce市":2`,
		`"a\nb":1`, "\"a\nb\":1", "\"a\x01\":1", "\"\xff\xfe\":1", "\"\xe5\x9f\":1", `"":0`, `"x"1`,
		`"x"  :`, ` "x":`, `x":1`, `"`, `"\`, `"城`, `"城"`, "\"\xc0\xaf\":1", `"\ud800":1`,
	}
	for _, k := range keys {
		for n := 0; n <= len(k); n++ {
			b := []byte(k[:n])
			gk, gi, gerr := memberKey(b, 0)
			wk, wi, werr := scannedKey(b, 0)
			if string(gk) != string(wk) || gi != wi || (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
				t.Errorf("memberKey(%q) = %q %d %v; scannedKey %q %d %v", b, gk, gi, gerr, wk, wi, werr)
			}
		}
	}
}
