# Sentence-level sentiment classification with evidence words, as the YD/T draft
# "面向应用场景的自然语言处理模型评估方法" §6.2 evaluates it: the accuracy of the label (formula 1),
# the robustness score R with a perturb block (formula 5), and the interpretability score I:
# precision, recall and F1 of the evidence words the model returns against the annotated ones
# (formula 6 on), pooled over the cases that annotate evidence.
#
# Expected response: { "label": "正面", "confidence": 0.93, "evidence": ["好吃", "周到"] }.
# A case annotates its evidence as a list, compared as a multiset of words in any order:
#   expect = { "$.label" = "正面", "$.evidence" = ["好吃", "周到"] }
schema "sentiment" {
  description = "Sentence-level sentiment with evidence words: label accuracy and the interpretability score (evidence precision, recall, F1)"

  response = object({
    label      = string
    confidence = optional(number)
    evidence   = optional(list(string))
  })

  # The sentiment label (正面, 负面, …): accuracy and per-label P/R/F1; with the
  # confidence, calibration too.
  dimension "sentiment" {
    kind       = "label"
    path       = "$.label"
    confidence = "$.confidence"
  }

  # The evidence words: an items dimension without keys compares its items whole,
  # so each word is a unit. precision = right words / words returned, recall =
  # right words / words annotated, f1 (the interpretability score).
  dimension "evidence" {
    kind  = "items"
    items = "$.evidence[*]"
  }
}
