package schema

// Script is the runner's unit of work: the ordered turns that one session
// runs against the target. A single-utterance case (a template or dataset
// row) is a script of one turn; a conversation or memory test is a script of
// several. Shards, resume and de-duplication key on Script.ID, so a script is
// always run (and re-run) whole.
type Script struct {
	// ID is the stable script id. For a script of one turn it equals that
	// turn's case id.
	ID string
	// Source names the case source (template, dataset, conversation…) the
	// script came from; SourceKind is that source's kind.
	Source     string
	SourceKind string
	// Turns are the cases sent in order, one call each.
	Turns []*Case
}

// Single wraps one case as a script of one turn.
func Single(c *Case) *Script {
	// One allocation for the script and its turn: runs make one per case.
	p := &struct {
		s     Script
		turns [1]*Case
	}{}
	p.turns[0] = c
	p.s = Script{ID: c.ID, Source: c.Template, SourceKind: "template", Turns: p.turns[:]}
	return &p.s
}

// Message is one utterance of a session's history, as a chatbot target
// sends it back with the next turn.
type Message struct {
	// Role is "user" for what the test said and "bot" for the reply.
	Role string `json:"role"`
	Text string `json:"text"`
}
