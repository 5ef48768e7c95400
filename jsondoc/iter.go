package jsondoc

// Walking the tape without a callback per value: an object's first member
// key is r+1 and its value the key's Ref+1, an array's first element is
// r+1, and Next gives what follows a value. Each and Elems do the same with
// a callback; these let a caller that recurses over a whole document (the
// dimension walk) do without a closure per container.

// Next is the Ref just after the value v and everything inside it: the key
// of the next member when v is a member's value, the next element when v
// is an array's element (valid only while there is one: Len says how many).
func (d *Doc) Next(v Ref) Ref { return Ref(d.nodes[v].next) }

// RepeatsKeys reports whether the object r names a key more than once
// (Each then gives the key only at its last occurrence; walking members
// with Next gives every occurrence).
func (d *Doc) RepeatsKeys(r Ref) bool { return d.nodes[r].flags&flagDupKeys != 0 }

// HasRepeatedKeys reports whether some object of the document names a
// key more than once (RepeatsKeys of that object).
func (d *Doc) HasRepeatedKeys() bool { return d.dups }

// Offset is the byte offset in the parsed text where the value r starts
// (a string's opening quote), for messages that point at it.
func (d *Doc) Offset(r Ref) int {
	n := &d.nodes[r]
	if n.kind == String {
		return int(n.start) - 1
	}
	return int(n.start)
}
