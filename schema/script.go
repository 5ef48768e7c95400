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
	// Turns are the cases sent in order, one call each: all of them, or,
	// for a script whose later turns are made on demand (Rest), the
	// first. Read a script's turns with Len and At.
	Turns []*Case
	// Rest, when set, makes turn i (from len(Turns) on) when asked, of
	// RestLen more turns: a long conversation's turns are not all held at
	// once (issue 35: 544 bytes a turn before the run calls it). Each call
	// makes a new case.
	Rest    func(i int) *Case
	RestLen int
	// After, when set, runs after turn i's result and before turn i+1
	// (next) is called: a conversation's source hands captured values on.
	After func(i int, r *Result, next *Case)
	// Next, when set, makes the script dynamic (a scenario's simulated
	// user, SPEC §14.6): after the last of Turns, the runner calls Next
	// with the index and result of the turn that just ran (a call that
	// did not error) and runs the case it returns as the next turn, until
	// it returns nil. Next must not keep state of its own between calls
	// (the script is run again by resume and --repeat): what it needs of
	// earlier turns travels in the cases it returns (Case.Agenda).
	Next func(i int, r *Result) *Case
	// FinalState, when set, is read after the script's last turn (when no
	// call errored) and recorded on that turn's result (a final_state
	// block).
	FinalState *FinalStateQuery
}

// Single wraps one case as a script of one turn.
func Single(c *Case) *Script {
	// One allocation for the script and its turn: runs make one per case.
	p := &struct {
		s     Script
		turns [1]*Case
	}{}
	p.turns[0] = c
	kind, name := c.SourceOf()
	p.s = Script{ID: c.ID, Source: name, SourceKind: kind, Turns: p.turns[:]}
	return &p.s
}

// single is a script of one turn with its case, allocated together.
type single struct {
	script Script
	turns  [1]*Case
	c      Case
}

// NewSingle allocates an empty case and its script of one turn in one
// allocation: a source that builds many single-turn cases fills the case
// and then calls Seal on the script. The script's Turns holds the case.
func NewSingle() (*Script, *Case) {
	s := &single{}
	s.turns[0] = &s.c
	s.script.Turns = s.turns[:]
	return &s.script, &s.c
}

// Seal copies the id and source of a single-turn script's case into the
// script, once the case is filled.
func (s *Script) Seal() *Script {
	if len(s.Turns) == 1 {
		c := s.Turns[0]
		s.ID = c.ID
		s.SourceKind, s.Source = c.SourceOf()
	}
	return s
}

// Len is the number of the script's turns known before it runs (a dynamic
// script's later turns, made by Next, aside).
func (s *Script) Len() int { return len(s.Turns) + s.RestLen }

// At returns turn i (from 0) of the script's Len turns.
func (s *Script) At(i int) *Case {
	if i < len(s.Turns) {
		return s.Turns[i]
	}
	return s.Rest(i)
}

// Message is one utterance of a session's history, as a chatbot target
// sends it back with the next turn (case.history in request expressions).
type Message struct {
	// Role is "user" for what the test said and "assistant" for the bot's
	// reply (the names of OpenAI's chat messages).
	Role    string `json:"role"`
	Content string `json:"content"`
}
