// Converts the SMP2019 ECDT task 1 training file (train.json: one JSON array
// of {"text", "domain", "intent", "slots": {slot: value}}, grouped by domain)
// into one JSONL file, one utterance a line:
//
//   {"id": "music-0007", "text": "...", "domain": "music", "intent": "PLAY",
//    "entities": [{"entity": "song", "value": "..."}, ...]}
//
// The id is the domain and the utterance's number within its domain, in file
// order, so ids (and nlutest's hash split over them) are stable. Slots become
// entities in the slot map's order; every value is a string (SMP gives no
// offsets, so slots are compared as (type, value) pairs). The output goes to
// a run directory, never into the repository: the data's licence is unknown.
//
// Usage: node smp-to-jsonl.js DIR OUT.jsonl   (DIR holds train.json)
'use strict';

const fs = require('fs');
const path = require('path');

function convert(file) {
  const rows = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(rows)) throw new Error(`${file}: not a JSON array of utterances`);
  const perDomain = new Map();
  return rows.map((r, i) => {
    for (const k of ['text', 'domain', 'intent']) {
      if (typeof r[k] !== 'string' || r[k] === '') throw new Error(`${file}: utterance ${i + 1} has no "${k}" string`);
    }
    const slots = r.slots || {};
    if (typeof slots !== 'object' || Array.isArray(slots)) throw new Error(`${file}: utterance ${i + 1}: "slots" is not an object`);
    const n = (perDomain.get(r.domain) || 0) + 1;
    perDomain.set(r.domain, n);
    return JSON.stringify({
      id: `${r.domain}-${String(n).padStart(4, '0')}`,
      text: r.text,
      domain: r.domain,
      intent: r.intent,
      entities: Object.entries(slots).map(([entity, value]) => ({ entity, value: String(value) })),
    });
  });
}

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
  console.error('usage: node smp-to-jsonl.js DIR OUT.jsonl');
  process.exit(2);
}
const file = path.join(dir, 'train.json');
let lines;
try {
  lines = convert(file);
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
if (lines.length === 0) {
  console.error(`${file}: no utterances`);
  process.exit(1);
}
fs.writeFileSync(out, lines.join('\n') + '\n');
console.log(`${lines.length} utterances from ${file} -> ${out}`);
