package generate

import (
	"math"
	"reflect"
	"testing"
)

// A filler compiled from an expectation value gives, per case, the value
// with each {slot} replaced by that slot's expected value; `{{` and `}}`
// are literal braces; parts without placeholders are shared, not copied.
func TestFillerFillsPlaceholders(t *testing.T) {
	index := map[string]int{"城市": 0, "城市#2": 1}
	exp := []string{"北京", "上海"}
	for _, tc := range []struct {
		name    string
		in      any
		want    any
		dynamic bool
	}{
		{"whole placeholder", "{城市}", "北京", true},
		{"placeholders in text", "从{城市}到{城市#2}", "从北京到上海", true},
		{"literal braces", "{{原样}}", "{原样}", false},
		{"braces around a placeholder", "{{{城市#2}}}", "{上海}", true},
		{"unknown placeholder kept", "{日期}", "{日期}", false},
		{"number", int64(3), int64(3), false},
		{"list", []any{"{城市}", "{{a}}", 1}, []any{"北京", "{a}", 1}, true},
		{"static list", []any{"{{a}}", true}, []any{"{a}", true}, false},
		{"object", map[string]any{"to": "{城市#2}", "n": 2}, map[string]any{"to": "上海", "n": 2}, true},
		{"null", nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := compileFiller(tc.in, index)
			if f.dynamic != tc.dynamic {
				t.Errorf("dynamic = %v, want %v", f.dynamic, tc.dynamic)
			}
			if got := f.fill(exp); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("fill = %#v, want %#v", got, tc.want)
			}
		})
	}
}

// productSize multiplies the slots' value counts and says when the
// product no longer fits in 64 bits (the product cap's warning then says
// "more than …").
func TestProductSize(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		want  uint64
		fits  bool
	}{
		{nil, 1, true},
		{[]int{4, 1000, 1000}, 4_000_000, true},
		{[]int{1 << 32, 1 << 31}, 1 << 63, true},
		{[]int{1 << 32, 1 << 32}, 0, false},
		{[]int{math.MaxInt32, math.MaxInt32, math.MaxInt32}, 0, false},
	} {
		got, fits := productSize(tc.sizes)
		if got != tc.want || fits != tc.fits {
			t.Errorf("productSize(%v) = %d, %v; want %d, %v", tc.sizes, got, fits, tc.want, tc.fits)
		}
	}
	if got := sizesText([]int{4, 1000, 1000}); got != "4 × 1000 × 1000 values" {
		t.Errorf("sizesText = %q", got)
	}
}

// distinctDraws shifts the later draws of one materials ({城市#2} after
// {城市}) to the next value no earlier draw of the group took, wrapping
// around; slots outside the group are left alone.
func TestDistinctDraws(t *testing.T) {
	for _, tc := range []struct {
		idx, grp, sizes, want []int
	}{
		{[]int{0, 1}, []int{0, 1}, []int{3, 3}, []int{0, 1}},
		{[]int{1, 1}, []int{0, 1}, []int{3, 3}, []int{1, 2}},
		{[]int{2, 2}, []int{0, 1}, []int{3, 3}, []int{2, 0}},
		{[]int{0, 5, 0, 0}, []int{0, 2, 3}, []int{3, 9, 3, 3}, []int{0, 5, 1, 2}},
	} {
		idx := append([]int(nil), tc.idx...)
		distinctDraws(idx, tc.grp, tc.sizes)
		if !reflect.DeepEqual(idx, tc.want) {
			t.Errorf("distinctDraws(%v, group %v) = %v, want %v", tc.idx, tc.grp, idx, tc.want)
		}
	}
}
