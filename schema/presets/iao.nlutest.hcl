# The IAO NLU response of seed 000 (the demo target's "iao" endpoint).
schema "iao" {
  description = "IAO NLU: ontology, attributes, relations, behaviours and intents of police-domain queries"
  response = object({
    code = number
    msg  = optional(string)
    data = list(object({
      apps       = optional(any)
      content    = optional(any)
      content_op = optional(string)
    }))
    data_op = optional(object({
      data_rel          = optional(list(string))
      data_rel_property = optional(any)
    }))
    unknown = optional(any)
  })
}
