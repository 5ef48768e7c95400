// Converts CLINC150's evaluation file (clinc/oos-eval, data_full.json's
// "test" and "oos_test": {"test": [[utterance, intent], ...], "oos_test":
// [[utterance, "oos"], ...]}) into two JSONL files, one utterance a line:
//
//   OUT/clinc-in.jsonl   {"id": "translate-001", "text": "...", "intent": "translate"}
//   OUT/clinc-oos.jsonl  {"id": "oos-0001", "text": "..."}
//
// Ids are the intent and the utterance's number within it (file order), so
// they (and nlutest's hash split over them) are stable.
//
// Usage: node clinc-to-jsonl.js DIR OUTDIR   (DIR holds data_full.test_and_oos_test.json)
'use strict';

const fs = require('fs');
const path = require('path');

function pairs(doc, key, file) {
  const rows = doc[key];
  if (!Array.isArray(rows)) throw new Error(`${file}: no "${key}" array`);
  return rows.map((r, i) => {
    if (!Array.isArray(r) || typeof r[0] !== 'string' || typeof r[1] !== 'string') {
      throw new Error(`${file}: ${key}[${i}] is not [utterance, intent]`);
    }
    return r;
  });
}

function convert(file) {
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const perIntent = new Map();
  const inScope = pairs(doc, 'test', file).map(([text, intent]) => {
    const n = (perIntent.get(intent) || 0) + 1;
    perIntent.set(intent, n);
    return JSON.stringify({ id: `${intent}-${String(n).padStart(3, '0')}`, text, intent });
  });
  const oos = pairs(doc, 'oos_test', file).map(([text], i) => JSON.stringify({ id: `oos-${String(i + 1).padStart(4, '0')}`, text }));
  return { inScope, oos, intents: perIntent.size };
}

const [dir, outDir] = process.argv.slice(2);
if (!dir || !outDir) {
  console.error('usage: node clinc-to-jsonl.js DIR OUTDIR');
  process.exit(2);
}
const file = path.join(dir, 'data_full.test_and_oos_test.json');
let r;
try {
  r = convert(file);
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
fs.writeFileSync(path.join(outDir, 'clinc-in.jsonl'), r.inScope.join('\n') + '\n');
fs.writeFileSync(path.join(outDir, 'clinc-oos.jsonl'), r.oos.join('\n') + '\n');
console.log(`${r.inScope.length} in-scope utterances (${r.intents} intents) and ${r.oos.length} out-of-scope from ${file} -> ${outDir}`);
