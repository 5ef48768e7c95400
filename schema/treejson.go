package schema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
)

// The report JSON of the metrics tree: Node and Metrics write their fields
// as encoding/json would, then the members the descriptor registered
// beyond them (Node.Families, Metrics.Sources), sorted by name; reading
// keeps such members of registered names (as raw JSON, which ReadMetrics
// reads too).

type nodeFields Node

type metricsGroups struct {
	Split    map[string]*Node `json:"split,omitempty"`
	Level    map[string]*Node `json:"level,omitempty"`
	Scene    map[string]*Node `json:"scene,omitempty"`
	Core     *Node            `json:"core,omitempty"`
	Noncore  *Node            `json:"noncore,omitempty"`
	Template map[string]*Node `json:"template,omitempty"`
}

// MarshalJSON writes the node's fields, then Families.
func (n *Node) MarshalJSON() ([]byte, error) {
	b, err := marshalPlain((*nodeFields)(n))
	if err != nil || len(n.Families) == 0 {
		return b, err
	}
	return appendMembers(b, n.Families)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (n *Node) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*nodeFields)(n)); err != nil {
		return err
	}
	extra, err := extraMembers(b, nodeType, func(string) bool { return true })
	if len(extra) > 0 {
		n.Families = map[string]any{}
		for k, v := range extra {
			n.Families[k] = v
		}
	}
	return err
}

// MarshalJSON writes the root node, then the groups, then Sources.
func (m *Metrics) MarshalJSON() ([]byte, error) {
	b, err := m.Node.MarshalJSON()
	if err != nil {
		return nil, err
	}
	g, err := marshalPlain(metricsGroups{m.Split, m.Level, m.Scene, m.Core, m.Noncore, m.Template})
	if err != nil {
		return nil, err
	}
	b = joinObjects(b, g)
	if len(m.Sources) == 0 {
		return b, nil
	}
	src := make(map[string]any, len(m.Sources))
	for k, v := range m.Sources {
		src[k] = v
	}
	return appendMembers(b, src)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	if err := m.Node.UnmarshalJSON(b); err != nil {
		return err
	}
	var g metricsGroups
	if err := json.Unmarshal(b, &g); err != nil {
		return err
	}
	m.Split, m.Level, m.Scene, m.Core, m.Noncore, m.Template = g.Split, g.Level, g.Scene, g.Core, g.Noncore, g.Template
	// A member beyond the node's fields and the built-in groups is a
	// family's value, or a source kind's group (metrics.dataset): a map of
	// nodes. Reading needs no descriptor: a map whose entries are all
	// nodes (a "total" and an "accuracy") is a group.
	groups := jsonFields(groupsType)
	for k, v := range m.Families {
		raw, _ := v.(json.RawMessage)
		if groups[k] != nil || !nodeMap(raw) {
			if groups[k] != nil {
				delete(m.Families, k)
			}
			continue
		}
		var nodes map[string]*Node
		if err := json.Unmarshal(raw, &nodes); err != nil {
			return err
		}
		if m.Sources == nil {
			m.Sources = map[string]map[string]*Node{}
		}
		m.Sources[k] = nodes
		delete(m.Families, k)
	}
	if len(m.Families) == 0 {
		m.Families = nil
	}
	return nil
}

// nodeMap reports whether raw is a JSON object whose members are all
// objects with the members every node has (total, accuracy); an empty
// object counts (a source group of a suite without such sources).
func nodeMap(raw json.RawMessage) bool {
	var entries map[string]map[string]json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return false
	}
	for _, e := range entries {
		if e == nil || e["total"] == nil || e["accuracy"] == nil {
			return false
		}
	}
	return true
}

var groupsType = reflect.TypeFor[metricsGroups]()

// marshalPlain marshals v without escaping HTML characters (the encoder
// writing the report escapes them or not).
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// appendMembers adds the members of extra, sorted by name, to the JSON
// object b.
func appendMembers(b []byte, extra map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var obj bytes.Buffer
	obj.WriteByte('{')
	for i, k := range keys {
		kb, _ := marshalPlain(k)
		vb, err := marshalPlain(extra[k])
		if err != nil {
			return nil, err
		}
		if i > 0 {
			obj.WriteByte(',')
		}
		obj.Write(kb)
		obj.WriteByte(':')
		obj.Write(vb)
	}
	obj.WriteByte('}')
	return joinObjects(b, obj.Bytes()), nil
}

// joinObjects merges the members of the JSON objects a and b.
func joinObjects(a, b []byte) []byte {
	if len(b) <= 2 {
		return a
	}
	if len(a) <= 2 {
		return b
	}
	out := make([]byte, 0, len(a)+len(b))
	out = append(out, a[:len(a)-1]...)
	out = append(out, ',')
	return append(out, b[1:]...)
}

// extraMembers returns the members of the JSON object b that are not
// fields of t and that keep accepts.
func extraMembers(b []byte, t reflect.Type, keep func(string) bool) (map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	known := jsonFields(t)
	out := map[string]json.RawMessage{}
	for k, v := range all {
		if _, ok := known[k]; !ok && keep(k) {
			out[k] = v
		}
	}
	return out, nil
}
