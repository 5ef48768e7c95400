# Rasa NLU's /model/parse response (also the demo target's "rasa" endpoint).
schema "rasa" {
  description = "Rasa NLU parse result: intent with ranking, entities with offsets"
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
    })))
  })
}
