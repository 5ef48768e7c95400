# Sentence-level sentiment with evidence words: the interpretability score of
# the YD/T draft "面向应用场景的自然语言处理模型评估方法" §6.2 — precision,
# recall and F1 of the evidence words a model returns against the annotated
# ones — beside the label's accuracy, with the built-in "sentiment" schema.
# Twelve self-written Chinese reviews (data/reviews.jsonl). The default target
# replays answers recorded from a model (recorded/results.jsonl), so the suite
# runs offline; `--target service` calls a model that answers
#   POST {"text": "…"} → {"label": "正面", "confidence": 0.93, "evidence": ["好吃", "周到"]}
# at var.service_url.

suite "sentiment-evidence" {
  description = "Sentence-level sentiment: label accuracy and the interpretability score of evidence words"
  schema      = "sentiment"
}

variable "service_url" {
  description = "The sentiment model's endpoint, for --target service"
  default     = env("SENTIMENT_URL", "http://127.0.0.1:8080/sentiment")
}

target "model" {
  replay {
    source = "recorded/results.jsonl"
  }
}

target "service" {
  http {
    url    = var.service_url
    method = "POST"
    body   = jsonencode({ text = case.text })
  }
}

# Each review expects its label and its annotated evidence words (a multiset,
# any order): a case passes only when both match; the thresholds read the
# label accuracy and the evidence figures.
dataset "reviews" {
  source = "data/reviews.jsonl"
  id     = row.id
  text   = row.text
  expect = {
    "$.label"    = row.label
    "$.evidence" = row.evidence
  }
}

# Recorded answers: label accuracy 10/12 = 0.833; evidence precision 15/20 =
# 0.75, recall 15/24 = 0.625, F1 30/44 = 0.682.
threshold "sentiment" {
  condition = metrics.label.sentiment.accuracy >= 0.8
  message   = "sentence-level sentiment accuracy (formula 1)"
}

threshold "interpretability" {
  condition = metrics.dimension.evidence.f1 >= 0.6 && metrics.dimension.evidence.precision >= 0.7
  message   = "interpretability score: evidence words F1 and precision"
}
