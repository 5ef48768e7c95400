package pipeline

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
// replies (spec.ReadSheet compares it with ReplyDigests of the run).

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
// by id, one at a time: a first pass notes where each item's records lie
// (a few dozen bytes per record), a second reads them back item by item,
// so memory does not grow with the recorded responses. Text and Reply are
// cut to max UTF-16 code units by cut (at most 4·max bytes of either is
// kept before that).
func ReadSheetItems(path string, max int, cut func(string, int) string, fn func(*SheetItem) error) (int, error) {
	ids, items, err := sheetItems([]string{path}, false)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var buf []byte
	for _, id := range ids {
		var text, reply capBuilder
		text.limit, reply.limit = 4*max, 4*max
		for _, rec := range items[id] {
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
			rec.sum = turnDigest(r.Text, rep)
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
		item := &SheetItem{ID: id, Text: cut(strings.TrimSuffix(text.String(), "\n"), max), Reply: cut(reply.String(), max), Digest: digestOf(items[id])}
		if err := fn(item); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

// ReplyDigests reads the results of the run directories dirs and returns
// the digest of every item of the run's rating sheet, by item id: what
// spec.ReadSheet checks a sheet's reply_sha against.
func ReplyDigests(dirs []string) (map[string]string, error) {
	paths := make([]string, len(dirs))
	for i, d := range dirs {
		paths[i] = filepath.Join(d, runner.ResultsFile)
	}
	ids, items, err := sheetItems(paths, true)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		out[id] = digestOf(items[id])
	}
	return out, nil
}

// sheetRec is one record of an item: where it lies, its turn, and (once
// read) the digest of its utterance and reply.
type sheetRec struct {
	conv   bool
	turn   int
	repeat int
	at     runner.Span
	sum    [sha256.Size]byte
}

// sheetItems reads the results files paths once and returns the records of
// each item, by item id, and the item ids sorted. Each record id counts
// once: its lowest repetition under --repeat, else its first record (as
// eval counts it). A conversation's turns are in turn order. With sum, each
// record's turn digest is worked out on the way.
func sheetItems(paths []string, sum bool) ([]string, map[string][]*sheetRec, error) {
	byID := map[string]*sheetRec{}
	items := map[string][]*sheetRec{}
	for _, path := range paths {
		err := runner.ReadLinesAt(path, func(line []byte, n int, at runner.Span) error {
			var r schema.Result
			var rest schema.Deferred
			if err := r.DecodeForEval(line, &rest); err != nil {
				return fmt.Errorf("%s:%d: not a result record: %v", path, n, err)
			}
			rec := byID[r.ID]
			switch {
			case rec == nil:
				rec = &sheetRec{conv: r.Script != ""}
				byID[r.ID] = rec
				items[r.ScriptID()] = append(items[r.ScriptID()], rec)
			case r.Repeat >= rec.repeat:
				return nil
			}
			rec.turn, rec.repeat, rec.at = r.Turn, r.Repeat, at
			if sum {
				rec.sum = turnDigest(r.Text, replyText(&r))
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	ids := make([]string, 0, len(items))
	for id, recs := range items {
		ids = append(ids, id)
		slices.SortStableFunc(recs, func(a, b *sheetRec) int { return cmp.Compare(a.turn, b.turn) })
	}
	// Results are recorded as calls finish: sort for a stable sheet.
	slices.Sort(ids)
	return ids, items, nil
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

// digestOf is an item's digest from its records' turn digests in turn
// order: "sha256:" and the first 16 hex digits of SHA-256 over them. The
// letters in front keep a spreadsheet from reading it as a number.
func digestOf(recs []*sheetRec) string {
	h := sha256.New()
	for _, r := range recs {
		h.Write(r.sum[:])
	}
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
