package demo

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseResult is the body of a /model/parse response, in Rasa NLU's shape.
type ParseResult struct {
	// Text is the input text, unchanged.
	Text string `json:"text"`
	// Intent is the top-ranked intent.
	Intent IntentScore `json:"intent"`
	// IntentRanking holds up to five intents, highest confidence first.
	IntentRanking []IntentScore `json:"intent_ranking"`
	// Entities are the extracted entities, ordered by start offset; never nil.
	Entities []Entity `json:"entities"`
}

// IntentScore is an intent name with its confidence in [0, 1].
type IntentScore struct {
	// Name is one of the Intent* constants.
	Name string `json:"name"`
	// Confidence is the softmax probability, rounded down to 4 decimals.
	Confidence float64 `json:"confidence"`
}

// Entity is one extracted entity. Start and End are rune (code point)
// offsets into the text, End exclusive, as in Rasa.
type Entity struct {
	// Entity is the entity type (one of the Entity* constants).
	Entity string `json:"entity"`
	// Value is the entity as written in the text.
	Value string `json:"value"`
	// Start is the rune offset of the first character.
	Start int `json:"start"`
	// End is the rune offset just past the last character.
	End int `json:"end"`
	// ConfidenceEntity is the extractor's confidence.
	ConfidenceEntity float64 `json:"confidence_entity"`
	// Extractor names the component that found the entity.
	Extractor string `json:"extractor"`
	// Role is set for cities (departure/destination) and numbers
	// (tickets/people/rooms/nights) when the context tells.
	Role string `json:"role,omitempty"`
	// Normalized is the canonical value: the English city name, a date
	// token such as "tomorrow" or "next_monday", an integer for numbers and
	// hotel stars, "economy"/"business"/"first" for seat classes, the
	// upper-case flight number.
	Normalized any `json:"normalized"`
}

const (
	fallbackScore    = 1.0
	temperature      = 0.6
	shortTemperature = 1.0
	shortUnits       = 5
	rankingSize      = 5
)

// text is the input prepared for matching: per-rune lower case keeps rune
// offsets aligned with the original text.
type text struct {
	orig       []rune
	low        []rune
	lows       string
	byteToRune []int
}

func newText(s string) *text {
	orig := []rune(s)
	low := make([]rune, len(orig))
	for i, r := range orig {
		low[i] = unicode.ToLower(r)
	}
	lows := string(low)
	b2r := make([]int, len(lows)+1)
	ri := 0
	for bi, r := range lows {
		for k := 0; k < utf8.RuneLen(r); k++ {
			b2r[bi+k] = ri
		}
		ri++
	}
	b2r[len(lows)] = ri
	return &text{orig: orig, low: low, lows: lows, byteToRune: b2r}
}

func isASCIIAlnum(r rune) bool {
	return r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}

// find returns the rune offsets of every occurrence of surface (already
// lower case). Edges of the surface that are ASCII letters or digits must sit
// on a word boundary, so "hi" does not match inside "this" and "rain" not
// inside "train"; Chinese surfaces match anywhere.
func (t *text) find(surface string) []int {
	var out []int
	t.scan(surface, func(start int) bool {
		out = append(out, start)
		return true
	})
	return out
}

// has reports whether surface occurs at least once (see find).
func (t *text) has(surface string) bool {
	found := false
	t.scan(surface, func(int) bool {
		found = true
		return false
	})
	return found
}

// scan calls yield with the rune offset of each occurrence of surface until
// yield returns false.
func (t *text) scan(surface string, yield func(start int) bool) {
	if surface == "" {
		return
	}
	first, _ := utf8.DecodeRuneInString(surface)
	last, _ := utf8.DecodeLastRuneInString(surface)
	n := utf8.RuneCountInString(surface)
	leftWord, rightWord := isASCIIAlnum(first), isASCIIAlnum(last)
	for from := 0; from < len(t.lows); {
		i := strings.Index(t.lows[from:], surface)
		if i < 0 {
			return
		}
		b := from + i
		from = b + utf8.RuneLen(first)
		start := t.byteToRune[b]
		end := start + n
		if leftWord && start > 0 && isASCIIAlnum(t.low[start-1]) {
			continue
		}
		if rightWord && end < len(t.low) && isASCIIAlnum(t.low[end]) {
			continue
		}
		if !yield(start) {
			return
		}
	}
}

// lower lower-cases s rune by rune, as newText does, so that rune counts
// are preserved.
func lower(s string) string {
	r := []rune(s)
	for i := range r {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

// MaxEntities is the most entities an answer lists: the first ones by
// position (the intent is classified on all of them). Without it a text
// of 140,000 city names, within the 1 MiB request cap, got a 20 MB answer
// (about 140 bytes of JSON per 7-byte entity); with it an answer is the
// request's text plus at most a few kilobytes.
const MaxEntities = 100

// Parse classifies text and extracts entities. It is the logic of the
// /model/parse endpoint; it is pure and safe for concurrent use.
func Parse(s string) ParseResult {
	t := newText(s)
	ents := extractEntities(t)
	ranking := classify(t, ents)
	if len(ents) > MaxEntities {
		ents = ents[:MaxEntities:MaxEntities]
	}
	return ParseResult{
		Text:          s,
		Intent:        ranking[0],
		IntentRanking: ranking,
		Entities:      ents,
	}
}

// ---- entities ----

var (
	reCNDate = regexp.MustCompile(`大后天|后天|明天|明早|明晚|今天|今晚|(?:下|这|本)?(?:周|星期)[一二三四五六日天]`)
	reENDate = regexp.MustCompile(`\b(?:today|tonight|tomorrow|(?:the\s+)?day\s+after\s+tomorrow|(?:(?:next|this)\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b`)
	reCNNum  = regexp.MustCompile(`([0-9]+|[一二三四五六七八九十两俩])\s*(个人|个房间|个房|张|位|名|人|间|晚|夜)`)
	reENNum  = regexp.MustCompile(`\b([0-9]+|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:[a-z]+\s+){0,2}(tickets?|people|persons?|adults?|passengers?|guests?|travell?ers?|rooms?|nights?)\b`)
	reFlight = regexp.MustCompile(`\b(?:[a-z][a-z0-9]|[0-9][a-z])[0-9]{3,4}\b`)
)

var cnWeekday = map[rune]string{
	'一': "monday", '二': "tuesday", '三': "wednesday", '四': "thursday",
	'五': "friday", '六': "saturday", '日': "sunday", '天': "sunday",
}

var cnDigit = map[rune]int{
	'一': 1, '二': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9, '十': 10,
	'两': 2, '俩': 2,
}

var enDigit = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10,
}

func normalizeDate(m string) string {
	switch m {
	case "今天", "今晚", "today", "tonight":
		return "today"
	case "明天", "明早", "明晚", "tomorrow":
		return "tomorrow"
	case "后天":
		return "day_after_tomorrow"
	case "大后天":
		return "in_3_days"
	}
	if strings.HasSuffix(m, "tomorrow") {
		return "day_after_tomorrow"
	}
	r := []rune(m)
	if day, ok := cnWeekday[r[len(r)-1]]; ok {
		switch r[0] {
		case '下':
			return "next_" + day
		case '这', '本':
			return "this_" + day
		}
		return day
	}
	f := strings.Fields(m)
	if len(f) == 2 {
		return f[0] + "_" + f[1]
	}
	return m
}

func numberRole(unit string) string {
	switch {
	case unit == "张" || strings.HasPrefix(unit, "ticket"):
		return RoleTickets
	case unit == "间" || strings.HasPrefix(unit, "个房") || strings.HasPrefix(unit, "room"):
		return RoleRooms
	case unit == "晚" || unit == "夜" || strings.HasPrefix(unit, "night"):
		return RoleNights
	}
	return RolePeople
}

func atoiSmall(s string) int {
	n := 0
	for _, r := range s {
		if n > 1e8 {
			return n
		}
		n = n*10 + int(r-'0')
	}
	return n
}

func (t *text) span(bStart, bEnd int) (int, int) {
	return t.byteToRune[bStart], t.byteToRune[bEnd]
}

func (t *text) entity(kind string, start, end int, norm any, conf float64, extractor string) Entity {
	return Entity{
		Entity: kind, Value: string(t.orig[start:end]), Start: start, End: end,
		ConfidenceEntity: conf, Extractor: extractor, Normalized: norm,
	}
}

func extractEntities(t *text) []Entity {
	var cands []Entity
	for _, g := range gazetteers {
		for _, e := range g.entries {
			for _, i := range t.find(e.low) {
				cands = append(cands, t.entity(g.entity, i, i+e.runes, e.normalized, e.conf, ExtractorGazetteer))
			}
		}
	}
	for _, re := range []*regexp.Regexp{reCNDate, reENDate} {
		for _, m := range re.FindAllStringIndex(t.lows, -1) {
			s, e := t.span(m[0], m[1])
			cands = append(cands, t.entity(EntityDate, s, e, normalizeDate(t.lows[m[0]:m[1]]), 0.97, ExtractorPattern))
		}
	}
	for _, m := range reCNNum.FindAllStringSubmatchIndex(t.lows, -1) {
		s, e := t.span(m[2], m[3])
		num := t.lows[m[2]:m[3]]
		var n int
		if v, ok := cnDigit[[]rune(num)[0]]; ok {
			n = v
		} else {
			n = atoiSmall(num)
		}
		ent := t.entity(EntityNumber, s, e, n, 0.9, ExtractorPattern)
		ent.Role = numberRole(t.lows[m[4]:m[5]])
		cands = append(cands, ent)
	}
	for _, m := range reENNum.FindAllStringSubmatchIndex(t.lows, -1) {
		s, e := t.span(m[2], m[3])
		num := t.lows[m[2]:m[3]]
		n, ok := enDigit[num]
		if !ok {
			n = atoiSmall(num)
		}
		ent := t.entity(EntityNumber, s, e, n, 0.9, ExtractorPattern)
		ent.Role = numberRole(t.lows[m[4]:m[5]])
		cands = append(cands, ent)
	}
	for _, m := range reFlight.FindAllStringIndex(t.lows, -1) {
		s, e := t.span(m[0], m[1])
		cands = append(cands, t.entity(EntityFlightNo, s, e, strings.ToUpper(t.lows[m[0]:m[1]]), 0.92, ExtractorPattern))
	}

	// Leftmost, then longest, then first found; drop overlaps.
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Start != cands[j].Start {
			return cands[i].Start < cands[j].Start
		}
		return cands[i].End-cands[i].Start > cands[j].End-cands[j].Start
	})
	out := make([]Entity, 0, len(cands))
	end := 0
	for _, c := range cands {
		if c.Start < end {
			continue
		}
		out = append(out, c)
		end = c.End
	}
	assignCityRoles(t, out)
	return out
}

// assignCityRoles marks cities after 从/from as departures, after
// 到/去/飞/往/至/to as destinations, and a city directly followed by
// 到/至/飞/去/-/to and another city as a departure.
func assignCityRoles(t *text, ents []Entity) {
	for i := range ents {
		if ents[i].Entity != EntityCity {
			continue
		}
		if role := t.roleBefore(ents[i].Start); role != "" {
			ents[i].Role = role
			continue
		}
		if i+1 < len(ents) && ents[i+1].Entity == EntityCity && t.linksTo(ents[i].End, ents[i+1].Start) {
			ents[i].Role = RoleDeparture
		}
	}
}

func (t *text) skipSpaceBack(i int) int {
	for i > 0 && unicode.IsSpace(t.low[i-1]) {
		i--
	}
	return i
}

func (t *text) roleBefore(start int) string {
	i := t.skipSpaceBack(start)
	if i == 0 {
		return ""
	}
	switch t.low[i-1] {
	case '从':
		return RoleDeparture
	case '到', '去', '飞', '往', '至':
		return RoleDestination
	}
	// Previous English word.
	j := i
	for j > 0 && isASCIIAlnum(t.low[j-1]) {
		j--
	}
	switch string(t.low[j:i]) {
	case "from":
		return RoleDeparture
	case "to":
		return RoleDestination
	}
	return ""
}

func (t *text) linksTo(end, next int) bool {
	between := strings.TrimSpace(string(t.low[end:next]))
	switch between {
	case "到", "至", "飞", "去", "-", "—", "→", "to":
		return true
	}
	return false
}

// ---- intents ----

func scoreUnits(t *text) int {
	units := 0
	inWord := false
	for _, r := range t.low {
		if isASCIIAlnum(r) {
			if !inWord {
				units += 2
			}
			inWord = true
			continue
		}
		inWord = false
		if r >= 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			units++
		}
	}
	return units
}

func classify(t *text, ents []Entity) []IntentScore {
	scores := make([]float64, len(intentOrder))
	idx := func(name string) int {
		for i, n := range intentOrder {
			if n == name {
				return i
			}
		}
		return -1
	}
	add := func(ws []weight) {
		for _, w := range ws {
			scores[idx(w.intent)] += w.w
		}
	}
	for _, f := range features {
		for _, s := range f.surfaces {
			if t.has(s) {
				add(f.weights)
				break
			}
		}
	}
	for _, e := range ents {
		for _, ev := range entityWeights {
			if ev.entity == e.Entity && (ev.role == "" || ev.role == e.Role) {
				add(ev.weights)
			}
		}
	}
	scores[idx(IntentFallback)] = fallbackScore

	temp := temperature
	if scoreUnits(t) < shortUnits {
		temp = shortTemperature
	}
	maxS := 0.0
	for _, s := range scores {
		maxS = math.Max(maxS, s)
	}
	exps := make([]float64, len(scores))
	sum := 0.0
	for i, s := range scores {
		exps[i] = math.Exp((s - maxS) / temp)
		sum += exps[i]
	}
	all := make([]IntentScore, len(scores))
	order := make([]int, len(scores))
	for i := range scores {
		all[i] = IntentScore{Name: intentOrder[i], Confidence: floor4(exps[i] / sum)}
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return scores[order[a]] > scores[order[b]]
	})
	out := make([]IntentScore, 0, rankingSize)
	for _, i := range order[:rankingSize] {
		out = append(out, all[i])
	}
	return out
}

// floor4 rounds p down to 4 decimals, so rounded confidences never sum above 1.
func floor4(p float64) float64 {
	return math.Floor(p*1e4+1e-9) / 1e4
}
