# Rasa NLU's /model/parse response (also the demo target's "rasa" endpoint).
schema "rasa" {
  description = "Rasa NLU parse result: intent with ranking, entities with offsets"

  ignore = ["$.text", "$.intent_ranking", "$.intent.confidence", "$..confidence_entity", "$..extractor", "$..start", "$..end"]

  response = object({
    text = optional(string)
    intent = object({
      name       = string
      confidence = optional(number)
    })
    intent_ranking = optional(list(object({
      name       = string
      confidence = number
    })))
    entities = optional(list(object({
      entity            = string
      value             = any
      start             = optional(number)
      end               = optional(number)
      confidence_entity = optional(number)
      extractor         = optional(string)
      role              = optional(string)
      group             = optional(string)
      normalized        = optional(any)
    })))
  })

  dimension "intent" {
    kind       = "label"
    path       = "$.intent.name"
    ranking    = "$.intent_ranking[*].name"
    confidence = "$.intent.confidence"
    top_k      = 3

    ranking_confidence = "$.intent_ranking[*].confidence"
  }

  dimension "entity" {
    kind  = "items"
    items = "$.entities[*]"
    keys  = ["entity", "value"]
    type  = "entity"
  }
}
