package demo

import (
	"fmt"
	"strings"
	"unicode"
)

// IAO messages.
const (
	iaoMsgNotUnderstood = "无法理解"
	iaoMsgBadPhone      = "未识别到手机号"
	iaoMsgBadID         = "未识别到身份证号"
)

// iaoOps are the query operations normalised to 查询. 检索 is deliberately
// missing (a documented weakness): unknown operations pass through as written.
var iaoOps = []string{"查询", "查一下", "帮我查", "帮我查询", "帮我查一下", "搜索", "查", "请查询"}

// iaoRelations maps accompaniment (伴随关系) phrases to IAO relation names.
var iaoRelations = []struct{ phrase, name string }{
	{"酒店同房间", "酒店同房间同宿"},
	{"同房间", "酒店同房间同宿"},
	{"酒店同宿", "酒店同房间同宿"},
	{"同住酒店", "酒店同住"},
	{"酒店同住", "酒店同住"},
	{"同行", "同行"},
	{"同乘航班", "同航班"},
	{"同航班", "同航班"},
	{"同车", "同车次"},
	{"同乘火车", "同车次"},
	{"同车次", "同车次"},
	{"网吧同上网", "网吧同上网"},
	{"同网吧上网", "网吧同上网"},
	{"同出入境", "同出入境"},
}

// iaoUnknownKeywords are place words IAO reports under "unknown" (the seed's
// example reports 酒店).
var iaoUnknownKeywords = []string{"酒店", "宾馆", "网吧", "航班", "火车"}

// iaoIDLabels precede an identity-card number; longest first.
var iaoIDLabels = []string{"身份证号码", "身份证号", "身份证"}

// iaoPersonSuffixes end the query after the relation phrase; longest first.
var iaoPersonSuffixes = []string{"的人员", "人员", "的人", "人"}

type anchorKind int

const (
	anchorPhone anchorKind = iota + 1
	anchorID
	anchorBadPhone
	anchorBadID
)

type anchor struct {
	kind       anchorKind
	start, end int // rune offsets of the number, end exclusive
	value      string
}

// findAnchor finds the first run of digits (with an optional leading '+',
// and a trailing X for identity cards) that is at least 7 characters long.
// An 11-digit 1[3-9]… run is a phone number, an 18-character run an identity
// card number; anything else is an unrecognised number.
func findAnchor(rs []rune) (anchor, bool) {
	for i := 0; i < len(rs); i++ {
		if !isDigit(rs[i]) && !(rs[i] == '+' && i+1 < len(rs) && isDigit(rs[i+1])) {
			continue
		}
		j := i + 1
		for j < len(rs) && isDigit(rs[j]) {
			j++
		}
		if j < len(rs) && (rs[j] == 'X' || rs[j] == 'x') && j-i == 17 && rs[i] != '+' {
			j++
		}
		if j-i < 7 {
			i = j - 1
			continue
		}
		run := string(rs[i:j])
		labelled := hasIDLabel(rs[:i])
		switch {
		case len(run) == 11 && run[0] == '1' && run[1] >= '3' && run[1] <= '9':
			return anchor{anchorPhone, i, j, run}, true
		case len(run) == 18 && run[0] != '+':
			return anchor{anchorID, i, j, run}, true
		case labelled:
			return anchor{anchorBadID, i, j, run}, true
		default:
			return anchor{anchorBadPhone, i, j, run}, true
		}
	}
	return anchor{}, false
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func hasIDLabel(prefix []rune) bool {
	p := strings.TrimSpace(string(prefix))
	for _, l := range iaoIDLabels {
		if strings.HasSuffix(p, l) {
			return true
		}
	}
	return false
}

// normalizeOp returns 查询 for the known query operations and the
// operation as written otherwise.
func normalizeOp(prefix string) string {
	p := strings.TrimSpace(prefix)
	for _, l := range iaoIDLabels {
		if strings.HasSuffix(p, l) {
			p = strings.TrimSpace(strings.TrimSuffix(p, l))
			break
		}
	}
	p = strings.TrimSuffix(p, "手机号")
	p = strings.TrimSuffix(p, "号码")
	for _, op := range iaoOps {
		if p == op {
			return "查询"
		}
	}
	return p
}

func relationName(phrase string) string {
	for _, r := range iaoRelations {
		if r.phrase == phrase {
			return r.name
		}
	}
	return ""
}

func iaoUnknown(query string) []any {
	type hit struct {
		pos int
		kw  string
	}
	var hits []hit
	for _, kw := range iaoUnknownKeywords {
		if i := strings.Index(query, kw); i >= 0 {
			hits = append(hits, hit{i, kw})
		}
	}
	// Insertion sort by position: at most five entries.
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].pos < hits[j-1].pos; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	out := []any{}
	for _, h := range hits {
		out = append(out, map[string]any{"keyword": h.kw, "ont": "unknown"})
	}
	return out
}

func iaoDataOp() map[string]any {
	return map[string]any{"data_rel": []any{""}, "data_rel_property": []any{}}
}

func span(start, end int) []any {
	return []any{0, fmt.Sprintf("%d-%d", start, end)}
}

// relationPhrase locates the accompaniment phrase after the anchor: an
// optional 的, then the phrase, then an optional 的人员/人员/的人/人 and
// trailing punctuation. It returns rune offsets; ok is false when nothing
// follows the anchor.
func relationPhrase(rs []rune, from int) (start, end int, ok bool) {
	end = len(rs)
	for end > from && (unicode.IsSpace(rs[end-1]) || unicode.IsPunct(rs[end-1])) {
		end--
	}
	start = from
	for start < end && unicode.IsSpace(rs[start]) {
		start++
	}
	if start < end && rs[start] == '的' {
		start++
	}
	rest := string(rs[start:end])
	for _, s := range iaoPersonSuffixes {
		if strings.HasSuffix(rest, s) {
			end -= len([]rune(s))
			break
		}
	}
	for end > start && rs[end-1] == '的' {
		end--
	}
	return start, end, start < end
}

// IAO answers a query in the style of the IAO NLU of the IAO corpus-factory write-up: for
// "{查询操作}{手机号}的{伴随关系}人员" it returns the SIM card, its user
// (使用人) and the accompaniment relation of that person. It is the logic of
// the /iao endpoint; the result is freshly allocated on every call.
//
// relIdx spans are rune offsets "start-end" (end exclusive) into the query:
// the accompaniment relation spans its phrase (酒店同房间 → "14-19" in the
// seed's example), and the 使用人 relation spans from the end of the phone
// number to the end of the phrase ("13-19"). The leading 0 is the index of
// the segment (segs holds the whole query as one segment).
func IAO(query string) map[string]any {
	rs := []rune(query)
	resp := map[string]any{
		"code":    200,
		"data":    []any{},
		"data_op": iaoDataOp(),
		"msg":     "",
		"unknown": iaoUnknown(query),
	}
	a, ok := findAnchor(rs)
	if !ok {
		resp["msg"] = iaoMsgNotUnderstood
		return resp
	}
	segs := func() []any { return []any{query} }

	des := map[string]any{}
	ont := "SIM_Card"
	switch a.kind {
	case anchorPhone:
		des["phone_number"] = a.value
	case anchorID:
		des["id_number"] = a.value
		ont = "Person"
	case anchorBadPhone:
		resp["msg"] = iaoMsgBadPhone
	case anchorBadID:
		resp["msg"] = iaoMsgBadID
		ont = "Person"
	}

	rels := []any{}
	if rStart, rEnd, ok := relationPhrase(rs, a.end); ok {
		inner := map[string]any{
			"behavior": []any{map[string]any{
				"category":  "伴随分析",
				"location":  []any{},
				"modifiers": []any{},
				"number":    []any{},
				"target":    nil,
				"time":      []any{},
				"traffic":   []any{},
			}},
			"des":       map[string]any{"intent": []any{"full"}},
			"intentPro": []any{"entity"},
			"ont":       []any{"Person", "Person"},
			"relIdx":    span(rStart, rEnd),
			"relName":   relationName(string(rs[rStart:rEnd])),
			"segs":      segs(),
		}
		if ont == "Person" {
			rels = append(rels, inner)
		} else {
			rels = append(rels, map[string]any{
				"des":     map[string]any{},
				"ont":     []any{"SIM_Card", "Person"},
				"rel":     []any{inner},
				"relIdx":  span(a.end, rEnd),
				"relName": "使用人",
				"segs":    segs(),
			})
		}
	}

	resp["data"] = []any{map[string]any{
		"apps": map[string]any{"app_op_seq": []any{}},
		"content": map[string]any{
			"des":  des,
			"ont":  ont,
			"rel":  rels,
			"segs": segs(),
		},
		"content_op": normalizeOp(string(rs[:a.start])),
	}}
	return resp
}
