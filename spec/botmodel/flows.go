package botmodel

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// This file reads Rasa Pro (CALM) flows (Rasa's "Business Logic with
// Flows" and "Flow Steps" reference pages): each flow and every step of
// it, branches included. A step's id is its id:, or the default id Rasa
// gives it (rasa/shared/core/flows/flow.py, resolve_default_ids): the
// steps of a flow are numbered in tree order — a step, then the steps of
// its next: branches (then:/else: lists), then the step after it — and
// a step without an id is FLOW_IDX_POSTFIX, the postfix naming what it
// does (collect_SLOT, the action's name, link_FLOW, call_FLOW,
// set_slots, noop). Rasa before 3.8 left the flow id out (IDX_POSTFIX);
// the tracker's dialogue stack shows whichever the server writes, and
// both are recognised.

// flows reads one training data file's flows section.
func (r *reader) flows(file string, src []byte, inDir bool) {
	root := r.dataRoot(file, src, "flows")
	if root == nil {
		return
	}
	flows := member(root, "flows")
	if flows == nil {
		if !inDir {
			r.warnf(file, root, "No flows", "%s has no flows section; a flows file is a mapping flows: with one entry per flow (transfer_money: {description: …, steps: […]}).", file)
		}
		return
	}
	if flows.Kind != yaml.MappingNode {
		if flows.Tag != "!!null" {
			r.errorf(file, flows, "Flows are not a mapping", "The flows section maps each flow's id to its description and steps; it is %s.", kindName(flows))
		}
		return
	}
	for i := 0; i+1 < len(flows.Content); i += 2 {
		id, body := flows.Content[i], flows.Content[i+1]
		if body.Kind != yaml.MappingNode {
			r.errorf(file, body, "Invalid flow", "Flow %q is a mapping with its description and steps; it is %s.", id.Value, kindName(body))
			continue
		}
		steps := member(body, "steps")
		if steps == nil || steps.Kind != yaml.SequenceNode || len(steps.Content) == 0 {
			at := id
			if steps != nil {
				at = steps
			}
			r.errorf(file, at, "Flow without steps", "Flow %q needs a steps list with at least one step (- collect: SLOT, - action: NAME …).", id.Value)
			continue
		}
		r.m.add(Item{Kind: Flow, Name: id.Value, At: r.at(file, id)})
		n := 0
		r.steps(file, id.Value, steps, &n)
	}
}

// steps reads a list of steps and, depth first, the steps of their
// branches, numbering them from *n.
func (r *reader) steps(file, flow string, seq *yaml.Node, n *int) {
	for _, st := range seq.Content {
		if st.Kind != yaml.MappingNode {
			r.errorf(file, st, "Invalid flow step", "A step of flow %q is a mapping (- collect: SLOT, - action: NAME, - link: FLOW …); this one is %s.", flow, kindName(st))
			continue
		}
		kind, postfix, detail := stepPostfix(st)
		if kind == "" {
			r.warnf(file, st, "Unknown flow step", "This step of flow %q has none of the keys that give a step its kind (action, collect, link, call, set_slots, noop); it is counted as a step, with Rasa's default id postfix \"step\".", flow)
		}
		idx := stepIndex(*n)
		*n++
		it := Item{Kind: FlowStep, Flow: flow, Detail: detail, At: r.at(file, st)}
		if id := member(st, "id"); id != nil && id.Value != "" {
			it.Step = id.Value
		} else {
			it.Step = flow + "_" + idx + "_" + postfix
			it.OldStep = idx + "_" + postfix
		}
		it.Name = flow + "/" + it.Step
		r.m.add(it)
		r.branches(file, flow, member(st, "next"), n)
	}
}

// branches reads the step lists of a next: list's then: and else:
// branches (a branch naming a step id holds none).
func (r *reader) branches(file, flow string, next *yaml.Node, n *int) {
	if next == nil || next.Kind != yaml.SequenceNode {
		return
	}
	for _, link := range next.Content {
		for _, key := range []string{"then", "else"} {
			switch b := member(link, key); {
			case b == nil:
			case b.Kind == yaml.SequenceNode:
				r.steps(file, flow, b, n)
			case b.Kind == yaml.MappingNode: // one step written without its list
				r.steps(file, flow, &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{b}}, n)
			case b.Kind == yaml.ScalarNode && strings.TrimSpace(b.Value) == "":
				r.errorf(file, b, "Empty branch", "A %s: branch names the step to go to (its id, or END) or lists the steps to take.", key)
			}
		}
	}
}
