# A dataset suite: a team's own question-answering test set (JSONL) scored
# by text metrics (EM/F1, BLEU, ROUGE, METEOR, distinct), and an intent test set
# (CSV) with perturbed variants scored by robustness. The target replays
# answers recorded from an earlier run, so the suite runs offline.

suite "dataset-qa" {
  description = "Question answering and intents from dataset files: text metrics and robustness"
  schema      = "rasa"
}

target "bot" {
  replay {
    source = "recorded/results.jsonl"
  }
}

dataset "问答" {
  source     = "data/qa.jsonl"
  id         = row.id
  text       = row.question
  references = row.answers
  scene      = [row.domain]
  level      = "S1"
}

dataset "意图" {
  source = "data/intents.csv"
  id     = row.id
  text   = row.text
  expect = { "$.intent.name" = row.intent }
  level  = "S1"
  core   = true

  perturb {
    kinds = ["swap", "width", "punct", "homophone"]
    count = 1
    seed  = 7
  }
}

text_metrics {
  smooth = "exp"
}

threshold "answers" {
  condition = metrics.text.exact_match >= 0.3 && metrics.text.f1 >= 0.6
}

threshold "wording" {
  condition = metrics.text.bleu >= 0.3 && metrics.text.rougeL >= 0.5 && metrics.text.meteor >= 0.6 && metrics.text.distinct1 >= 0.5
}

threshold "robustness" {
  condition = metrics.robustness.score >= 0.8 && metrics.robustness.original.passed == metrics.robustness.original.total
}
