// Converts the SNIPS NLU benchmark's per-intent JSON files (sonos/nlu-benchmark,
// 2017-06-custom-intent-engines: DIR/<Intent>/validate_<Intent>.json, each
// {"<Intent>": [{"data": [{"text": "..."}, {"text": "...", "entity": "slot"}, ...]}, ...]})
// into one JSONL file, one utterance a line:
//
//   {"id": "GetWeather-0007", "text": "...", "intent": "GetWeather",
//    "entities": [{"entity": "city", "value": "Gibsland"}, ...]}
//
// The utterance is the concatenation of the pieces; a piece with "entity" is a
// slot whose value is its text. Lines are in intent-name order, then file order,
// so the ids (and nlutest's hash split over them) are stable.
//
// Usage: node snips-to-jsonl.js DIR OUT.jsonl
'use strict';

const fs = require('fs');
const path = require('path');

function convert(dir) {
  const lines = [];
  const intents = fs.readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  for (const intent of intents) {
    const files = fs.readdirSync(path.join(dir, intent)).filter((f) => f.endsWith('.json')).sort();
    for (const f of files) {
      const doc = JSON.parse(fs.readFileSync(path.join(dir, intent, f), 'utf8'));
      (doc[intent] || []).forEach((u, i) => {
        const pieces = u.data || [];
        lines.push(JSON.stringify({
          id: `${intent}-${String(i + 1).padStart(4, '0')}`,
          text: pieces.map((p) => p.text).join(''),
          intent,
          entities: pieces.filter((p) => p.entity).map((p) => ({ entity: p.entity, value: p.text })),
        }));
      });
    }
  }
  return lines;
}

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
  console.error('usage: node snips-to-jsonl.js DIR OUT.jsonl');
  process.exit(2);
}
const lines = convert(dir);
if (lines.length === 0) {
  console.error(`${dir}: no <Intent>/*.json files found`);
  process.exit(1);
}
fs.writeFileSync(out, lines.join('\n') + '\n');
console.log(`${lines.length} utterances from ${dir} -> ${out}`);
