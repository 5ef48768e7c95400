// A small NLU server around nlp.js (https://github.com/axa-group/nlp.js),
// for nlutest's real-engine suites. At start-up it trains on a JSONL file of
// cases (the lines `nlutest generate --split train` writes, or any lines with
// "text" and "expect": {"$.intent.name": ..., "$.entities": [{entity, value}]})
// and then answers Rasa-shaped JSON:
//
//   POST /model/parse {"text": "..."}
//   -> {"text", "intent": {"name", "confidence"}, "intent_ranking": [...],
//       "entities": [{"entity", "value", "start", "end"}]}
//   GET  /health -> {"status": "ok"}
//
// Intents: nlp.js's neural classifier, English or Chinese by the text's
// script; when the training lines are all of one language, every text is
// read in that language (so "qq" in a Chinese set is Chinese). Entities:
// nlp.js's enum NER, fed with every entity value the training lines annotate
// (a gazetteer: values never seen in training are not found — the suites
// measure that honestly).
//
// Domains: when training lines also expect "$.domain.name" (SMP2019's domain,
// intent and slots), the classifier learns the pair as one label and the
// answer splits it again: "domain": {"name", "confidence"} and
// "domain_ranking" beside "intent" (the intent ranking then lists each
// intent once, at its best pair's score), and the entities are only those of
// the types training annotated for the predicted (domain, intent) pair —
// slots belong to an intent, so a gazetteer hit of another domain's slot type
// is dropped. Lines without it answer as above.
//
// Usage: node server.js TRAIN.jsonl PORT   (listens on 127.0.0.1 only)
'use strict';

const fs = require('fs');
const http = require('http');
const { containerBootstrap } = require('@nlpjs/core');
const { Nlp } = require('@nlpjs/nlp');
const { LangEn } = require('@nlpjs/lang-en');
const { LangZh } = require('@nlpjs/lang-zh');

const HAN = /[\u3400-\u9fff]/;
let onlyLang = null; // the one language trained, if only one was
const langOf = (text) => onlyLang || (HAN.test(text) ? 'zh' : 'en');
const PAIR = '::'; // joins domain and intent into one classifier label
let domains = false; // whether training lines gave "$.domain.name"
const typesOf = new Map(); // domain-mode label -> the entity types its lines annotate

function readCases(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

async function train(file) {
  const container = await containerBootstrap();
  container.use(Nlp);
  container.use(LangEn);
  container.use(LangZh);
  const nlp = container.get('nlp');
  nlp.nluManager.settings.log = false;
  nlp.settings.autoSave = false;
  nlp.settings.log = false;
  nlp.forceNER = true; // run the entity extractors on every text (nlp.js runs them only for slots otherwise)
  const langs = new Set();
  let n = 0;
  for (const c of readCases(file)) {
    const expect = c.expect || {};
    const intent = expect['$.intent.name'];
    if (typeof c.text !== 'string' || typeof intent !== 'string') continue;
    const lang = langOf(c.text);
    if (!langs.has(lang)) { nlp.addLanguage(lang); langs.add(lang); }
    const domain = expect['$.domain.name'];
    if (typeof domain === 'string') domains = true;
    const label = typeof domain === 'string' ? domain + PAIR + intent : intent;
    nlp.addDocument(lang, c.text, label);
    if (!typesOf.has(label)) typesOf.set(label, new Set());
    for (const e of expect['$.entities'] || []) {
      if (e && e.entity && e.value) {
        nlp.addNerRuleOptionTexts(lang, e.entity, String(e.value), [String(e.value)]);
        typesOf.get(label).add(e.entity);
      }
    }
    n++;
  }
  if (n === 0) throw new Error(`${file}: no line with text and expect["$.intent.name"] to train on`);
  if (langs.size === 1) [onlyLang] = langs;
  await nlp.train();
  return { nlp, n };
}

// rankOf lists each name once, at its first (best) score, in ranking order.
function rankOf(classifications, nameOf) {
  const seen = new Set();
  const out = [];
  for (const c of classifications) {
    const name = nameOf(c.intent);
    if (c.intent === 'None' || seen.has(name)) continue;
    seen.add(name);
    out.push({ name, confidence: c.score });
  }
  return out;
}

// withDomain splits the pair labels of a domain-trained model into the
// answer's "domain" and "intent".
function withDomain(out, r, noIntent) {
  const cls = r.classifications || [];
  const at = (label) => label.indexOf(PAIR);
  const domainOf = (label) => (at(label) < 0 ? '' : label.slice(0, at(label)));
  const intentOf = (label) => (at(label) < 0 ? label : label.slice(at(label) + PAIR.length));
  out.domain = noIntent ? { name: null, confidence: 0 } : { name: domainOf(r.intent), confidence: r.score };
  out.domain_ranking = rankOf(cls, domainOf);
  if (!noIntent) out.intent.name = intentOf(r.intent);
  const types = noIntent ? new Set() : typesOf.get(r.intent) || new Set();
  out.entities = out.entities.filter((e) => types.has(e.entity));
  out.intent_ranking = rankOf(cls, intentOf);
  return out;
}

function parseResult(text, r) {
  const ranking = (r.classifications || []).map((c) => ({ name: c.intent, confidence: c.score }));
  const noIntent = !r.intent || r.intent === 'None';
  const out = {
    text,
    intent: noIntent ? { name: null, confidence: 0 } : { name: r.intent, confidence: r.score },
    intent_ranking: ranking,
    entities: (r.entities || []).filter((e) => e.type === 'enum').map((e) => ({
      entity: e.entity, value: e.option, start: e.start, end: e.end + 1,
    })),
  };
  return domains ? withDomain(out, r, noIntent) : out;
}

function serve(nlp, port) {
  const server = http.createServer((req, res) => {
    const reply = (code, body) => {
      res.writeHead(code, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/health') return reply(200, { status: 'ok' });
    if (req.method !== 'POST' || req.url !== '/model/parse') return reply(404, { error: 'POST /model/parse or GET /health' });
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', async () => {
      let text;
      try { text = JSON.parse(Buffer.concat(chunks).toString('utf8')).text; } catch (e) { return reply(400, { error: 'body is not JSON' }); }
      if (typeof text !== 'string') return reply(400, { error: 'body needs "text": a string' });
      try {
        reply(200, parseResult(text, await nlp.process(langOf(text), text)));
      } catch (e) {
        reply(500, { error: String(e && e.message) });
      }
    });
  });
  server.listen(port, '127.0.0.1', () => console.log(`nlp.js listening on http://127.0.0.1:${server.address().port}`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function main() {
  const [file, port] = process.argv.slice(2);
  if (!file || port === undefined) {
    console.error('usage: node server.js TRAIN.jsonl PORT');
    process.exit(2);
  }
  const { nlp, n } = await train(file);
  console.log(`nlp.js trained on ${n} utterances from ${file}`);
  serve(nlp, Number(port));
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
