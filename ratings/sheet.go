package ratings

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// A rating sheet (nlutest ratings export, a suite's ratings block) has one
// item per single case (its utterance and reply) and one per conversation
// (keyed by its script id: its transcript). Each item carries the digest
// of the replies people rated, so a sheet is never applied to other
// replies (sheet.Read compares it with ReplyDigests of the run).

// SheetItem is one item of a rating sheet.
type SheetItem struct {
	// ID is the case id, or a conversation's script id.
	ID string
	// Text is the utterance, or for a conversation its transcript (one
	// "N 用户:" and "N 助手:" line per turn); Reply is the reply, or a
	// conversation's last reply. Both are cut to the cell limit given.
	Text, Reply string
	// Digest identifies what was rated (see digestOf).
	Digest string
}

// ReadSheetItems streams the items of the results file path to fn, sorted
// by id, one at a time: a first pass notes where each record lies (some
// 80 bytes per record), a second reads the records back item by item, so
// memory does not grow with the recorded responses. Text and Reply are
// cut to max UTF-16 code units by cut (at most 4·max bytes of either is
// kept before that).
func ReadSheetItems(path string, max int, cut func(string, int) string, fn func(*SheetItem) error) (int, error) {
	recs, err := sheetRecords([]string{path}, nil)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var buf []byte
	items := 0
	for group := range eachItem(recs) {
		items++
		var text, reply capBuilder
		text.limit, reply.limit = 4*max, 4*max
		digest := sha256.New()
		for i := range group {
			rec := &group[i]
			if cap(buf) < rec.at.Len {
				buf = make([]byte, rec.at.Len)
			}
			b := buf[:rec.at.Len]
			if _, err := f.ReadAt(b, rec.at.Off); err != nil {
				return 0, fmt.Errorf("%s: %w", path, err)
			}
			var r schema.Result
			if err := r.UnmarshalJSON(b); err != nil {
				return 0, fmt.Errorf("%s: not a result record at byte %d: %v", path, rec.at.Off, err)
			}
			rep := replyText(&r)
			sum := turnDigest(r.Text, rep)
			digest.Write(sum[:])
			reply.reset()
			reply.WriteString(rep)
			if rec.conv {
				text.WriteString(fmt.Sprintf("%d 用户: %s\n%d 助手: ", r.Turn, r.Text, r.Turn))
				text.WriteString(rep)
				text.WriteString("\n")
			} else {
				text.WriteString(r.Text)
			}
		}
		item := &SheetItem{ID: group[0].item, Text: cut(strings.TrimSuffix(text.String(), "\n"), max), Reply: cut(reply.String(), max), Digest: digestText(digest)}
		if err := fn(item); err != nil {
			return 0, err
		}
	}
	return items, nil
}

// ReplyDigests reads the results of the run directories dirs and returns
// the digest of every item of the run's rating sheet, by item id: what
// sheet.Read checks a sheet's reply_sha against.
func ReplyDigests(dirs []string) (map[string]string, error) {
	paths := make([]string, len(dirs))
	for i, d := range dirs {
		paths[i] = filepath.Join(d, runner.ResultsFile)
	}
	var sums [][sha256.Size]byte
	recs, err := sheetRecords(paths, func(r *schema.Result) {
		sums = append(sums, turnDigest(r.Text, replyText(r)))
	})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for group := range eachItem(recs) {
		h := sha256.New()
		for _, r := range group {
			h.Write(sums[r.read][:])
		}
		out[group[0].item] = digestText(h)
	}
	return out, nil
}

// sheetRec is one record of an item: the item (a case id, or a
// conversation's script id), the turn and repetition, where the record
// lies (its results file and span) and the order it was read in.
type sheetRec struct {
	item   string
	turn   int32
	repeat int32
	file   int32
	read   int32
	conv   bool
	at     runner.Span
}

// sheetRecords reads the results files paths once and returns their
// records sorted by item, then turn. Each record (an item's turn) counts
// once: its lowest repetition under --repeat, else its first record, as
// eval counts it. each, when not nil, sees every record as it is read (the
// record numbered sheetRec.read from 0). The records hold no pointer but
// the item id: a million of them are one flat slice of some 64 MB.
func sheetRecords(paths []string, each func(*schema.Result)) ([]sheetRec, error) {
	var recs []sheetRec
	for file, path := range paths {
		err := runner.ReadLinesAt(path, func(line []byte, n int, at runner.Span) error {
			var r schema.Result
			var rest schema.Deferred
			if err := r.DecodeForEval(line, &rest); err != nil {
				return fmt.Errorf("%s:%d: not a result record: %v", path, n, err)
			}
			recs = append(recs, sheetRec{item: r.ScriptID(), turn: int32(r.Turn), repeat: int32(r.Repeat), file: int32(file), read: int32(len(recs)),
				conv: r.Script != "", at: at})
			if each != nil {
				each(&r)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	// Results are recorded as calls finish: sort for a stable sheet. Of
	// two records of one turn and repetition, the first read comes first.
	slices.SortFunc(recs, func(a, b sheetRec) int {
		return cmp.Or(strings.Compare(a.item, b.item), cmp.Compare(a.turn, b.turn), cmp.Compare(a.repeat, b.repeat),
			cmp.Compare(a.file, b.file), cmp.Compare(a.at.Off, b.at.Off))
	})
	kept := recs[:0]
	for _, r := range recs {
		if k := len(kept); k > 0 && kept[k-1].item == r.item && kept[k-1].turn == r.turn {
			continue
		}
		kept = append(kept, r)
	}
	return slices.Clip(kept), nil
}

// eachItem yields the records of each item in turn (recs sorted by
// sheetRecords).
func eachItem(recs []sheetRec) func(yield func([]sheetRec) bool) {
	return func(yield func([]sheetRec) bool) {
		for i := 0; i < len(recs); {
			j := i + 1
			for j < len(recs) && recs[j].item == recs[i].item {
				j++
			}
			if !yield(recs[i:j]) {
				return
			}
			i = j
		}
	}
}

// replyText is what a sheet shows as the reply: the reply text, else the
// JSON response, else the (non-JSON) body.
func replyText(r *schema.Result) string {
	switch {
	case r.Reply != "":
		return r.Reply
	case len(r.Response) > 0:
		return string(r.Response)
	}
	return r.Body
}

// turnDigest is SHA-256 of a turn's utterance, a zero byte and its reply.
func turnDigest(text, reply string) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(text))
	h.Write([]byte{0})
	h.Write([]byte(reply))
	var s [sha256.Size]byte
	h.Sum(s[:0])
	return s
}

// digestText is an item's digest from the hash of its turns' digests in
// turn order: "sha256:" and the first 16 hex digits of SHA-256 over them.
// The letters in front keep a spreadsheet from reading it as a number.
func digestText(h hash.Hash) string {
	return "sha256:" + hex.EncodeToString(h.Sum(nil)[:8])
}

// capBuilder is a strings.Builder that keeps at most limit bytes (cut on
// a character boundary), enough for a cell cut to limit/4 code units
// whatever the text's size.
type capBuilder struct {
	strings.Builder
	limit int
	full  bool
}

func (c *capBuilder) WriteString(s string) {
	if c.full {
		return
	}
	if c.limit > 0 && c.Len()+len(s) > c.limit {
		room := c.limit - c.Len()
		for room > 0 && s[room]&0xC0 == 0x80 { // not the start of a character
			room--
		}
		s = s[:room]
		c.full = true
	}
	c.Builder.WriteString(s)
}

func (c *capBuilder) reset() {
	c.Builder.Reset()
	c.full = false
}
