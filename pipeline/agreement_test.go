package pipeline

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// agree against hand counts: 3 entailed (people agree), 3 contradicted
// (people: 2 contradicted, 1 neutral), 2 neutral (people agree): observed
// 7/8, chance (3·3 + 3·2 + 2·3)/64 = 21/64, Cohen's kappa (7/8 − 21/64) /
// (1 − 21/64) = 35/43 (Cohen 1960; scikit-learn's cohen_kappa_score gives
// 0.8139534883720931 on these labels). One verdict throughout leaves kappa
// undefined (nil), as scikit-learn's nan.
func TestAgree(t *testing.T) {
	judged := map[string]string{"a": "entailed", "b": "entailed", "c": "entailed", "d": "contradicted", "e": "contradicted", "f": "contradicted", "g": "neutral", "h": "neutral"}
	var human []verdictRow
	for id, v := range map[string]string{"a": "entailed", "b": "entailed", "c": "entailed", "d": "contradicted", "e": "contradicted", "f": "neutral", "g": "neutral", "h": "neutral", "zz": "neutral"} {
		human = append(human, verdictRow{id: id, verdict: v})
	}
	ag := agree(judged, human)
	if ag.Items != 8 || ag.Unmatched != 1 || ag.Agreed != 7 || ag.Kappa == nil || math.Abs(*ag.Kappa-0.8139534883720931) > 1e-12 {
		t.Errorf("agreement %+v, kappa %v; want 8 items, 1 unmatched, 7 agreed, kappa 35/43", ag, ag.Kappa)
	}
	if ag.Table[2][1] != 1 || ag.Table[2][2] != 2 || ag.Observed() != schema.R(7, 8) {
		t.Errorf("table %v", ag.Table)
	}
	one := agree(map[string]string{"a": "entailed", "b": "entailed"}, []verdictRow{{id: "a", verdict: "entailed"}, {id: "b", verdict: "entailed"}})
	if one.Kappa != nil || one.Items != 2 {
		t.Errorf("one verdict throughout: kappa %v", one.Kappa)
	}
	if none := agree(nil, nil); none.Items != 0 || none.Kappa != nil {
		t.Errorf("no items: %+v", none)
	}
}

// A bad sheet is refused with the file, line and column.
func TestReadVerdictsLocated(t *testing.T) {
	for _, c := range []struct{ sheet, want string }{
		{"id,verdict\nq/1,也许\n", `:2:5: "也许" is not a verdict`},
		{"编号,判定\n", `:1:1: the header row needs the columns id and verdict`},
		{"id,verdict\n,entailed\n", `:2:1: the row has no id or no verdict`},
	} {
		path := filepath.Join(t.TempDir(), "人工.csv")
		if err := os.WriteFile(path, []byte(c.sheet), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readVerdicts(path)
		if _, ok := err.(*InvalidError); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an invalid-input error with %s", c.sheet, err, c.want)
		}
	}
}
