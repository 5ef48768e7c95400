# SMP2019 ECDT task 1 (Chinese NLU: domain, intent, slots; the public
# training file, 2,579 utterances, 29 domains) read in place from
# ../shared/data — its licence is unknown, so no file of it, nor any line or
# converted copy, is committed here. run.sh converts train.json into JSONL
# (smp-to-jsonl.js) in the run directory, exports the 80 % `train` split to
# train the nlp.js engine of suites/nlpjs-travel, and evaluates the other
# 20 % over HTTP on 127.0.0.1.
#
#   suites/smp2019-nlpjs/run.sh

suite "smp2019-nlpjs" {
  description = "SMP2019 ECDT task 1: nlp.js trained on 80 %, evaluated on the held-out 20 % (domain, intent, slots)"
  schema      = "smp"
}

# The engine answers Rasa's shape plus the domain: "domain": {"name",
# "confidence"} and "domain_ranking" (engine/server.js).
schema "smp" {
  extends = "rasa"
  ignore  = ["$.domain.confidence", "$.domain_ranking"]

  dimension "domain" {
    kind       = "label"
    path       = "$.domain.name"
    ranking    = "$.domain_ranking[*].name"
    confidence = "$.domain.confidence"
    top_k      = 3

    ranking_confidence = "$.domain_ranking[*].confidence"
  }
}

variable "smp_jsonl" {
  description = "The JSONL file smp-to-jsonl.js wrote (run.sh sets it)"
  default     = env("SMP_JSONL", "smp.jsonl")
}

variable "engine_url" {
  description = "Base URL of the nlp.js server that run.sh starts on 127.0.0.1"
  default     = env("NLPJS_URL", "http://127.0.0.1:5005")
}

target "nlpjs" {
  http {
    url    = "${var.engine_url}/model/parse"
    method = "POST"
    body   = jsonencode({ text = case.text })
  }
  timeout     = "10s"
  concurrency = 4
}

dataset "smp" {
  source = var.smp_jsonl
  id     = row.id
  text   = row.text
  scene  = [row.domain]
  expect = {
    "$.domain.name" = row.domain
    "$.intent.name" = row.intent
    "$.entities"    = row.entities
  }
}

split "train" { fraction = 0.8 }
split "test" { fraction = 0.2 }

# Thresholds from measured runs (test split, 537 utterances; README.md) with
# a margin: domain accuracy 0.823, macro F1 0.801 (28 domains); intent
# accuracy 0.870, macro F1 0.764 (20 intents); slots (type + value) precision
# 0.494, F1 0.314 — nlp.js's enum NER only finds values seen in training, so
# open slots (name, dishName, song) are mostly missed, closed ones (target
# 0.960, author 0.903) are found; all of domain, intent and slots right in
# 0.162 of the utterances; p95 0.5–0.7 s on a loaded 2-core machine.
threshold "domain" {
  condition = metrics.label.domain.accuracy >= 0.75 && metrics.label.domain.macro_f1 >= 0.7
  message   = "SMP2019 domains on held-out utterances"
}

threshold "intent" {
  condition = metrics.label.intent.accuracy >= 0.8 && metrics.label.intent.macro_f1 >= 0.65
  message   = "SMP2019 intents on held-out utterances"
}

threshold "slots" {
  condition = metrics.dimension.entity.precision >= 0.4 && metrics.dimension.entity.f1 >= 0.25 && metrics.dimension.entity.types.target.f1 >= 0.85 && metrics.dimension.entity.types.author.f1 >= 0.8
  message   = "SMP2019 slots (type + value) on held-out utterances"
}

threshold "exact" {
  condition = metrics.accuracy >= 0.1
  message   = "utterances with domain, intent and every slot right"
  severity  = "warn"
}

threshold "latency" {
  condition = metrics.latency.p95_ms <= 10000
  message   = "p95 latency over loopback HTTP"
  severity  = "warn"
}
