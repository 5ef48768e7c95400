package jsonpath

import (
	"bytes"
	"encoding/json"
	"slices"
)

// orderedObject is a JSON object whose members JSONPath visits in key
// order (jp.Keyed): a cty object has no other order (its attributes are
// sorted, as its JSON is), and a Go map would give a new order each call.
type orderedObject struct {
	keys []string
	vals map[string]any
}

func (o *orderedObject) ValueForKey(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }
func (o *orderedObject) Keys() []string                   { return o.keys }
func (o *orderedObject) SetValueForKey(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
		slices.Sort(o.keys)
	}
	o.vals[k] = v
}
func (o *orderedObject) RemoveValueForKey(k string) {
	if _, ok := o.vals[k]; ok {
		delete(o.vals, k)
		o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
	}
}

// MarshalJSON writes the members in key order.
func (o *orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Ordered replaces every object in a generic JSON value (maps and slices
// as encoding/json decodes them) by one whose members JSONPath visits,
// and MarshalJSON writes, in key order; slices are changed in place. A
// path run over the result lists its matches in the same order each time.
func Ordered(v any) any {
	switch t := v.(type) {
	case map[string]any:
		o := &orderedObject{keys: make([]string, 0, len(t)), vals: make(map[string]any, len(t))}
		for k, x := range t {
			o.keys = append(o.keys, k)
			o.vals[k] = Ordered(x)
		}
		slices.Sort(o.keys)
		return o
	case []any:
		for i, x := range t {
			t[i] = Ordered(x)
		}
		return t
	}
	return v
}
