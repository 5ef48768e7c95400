# The IAO NLU response of the IAO corpus-factory write-up (the demo target's "iao" endpoint), with
# the IAO corpus-factory write-up §2.1's evaluation dimensions.
schema "iao" {
  description = "IAO NLU: ontology, attributes, relations, behaviours and intents of police-domain queries"

  # Paths that say nothing about recognition (segmentation, spans, words the
  # service did not know); dropped before dimensions and pre-annotation.
  ignore = ["$..segs", "$..relIdx", "$.unknown"]

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

  # The IAO corpus-factory write-up §2.1.5: an intent is right when apps, content (intentPro,
  # des.intent, behaviour target), content_op and data_rel are all right.
  dimension "intent" {
    kind  = "case"
    paths = ["$..app_op_seq[*].*", "$..content_op", "$.data_op.data_rel", "$..intentPro", "$..des.intent", "$..behavior[*].target"]
  }

  # The IAO corpus-factory write-up §2.1.1: ontologies (ont), single or pairs.
  dimension "ontology" {
    kind  = "leaf"
    paths = ["$..ont"]
  }

  # The IAO corpus-factory write-up §2.1.2: attributes of ontologies (des.phone_number, …).
  dimension "attribute" {
    kind  = "leaf"
    paths = ["$..des.*"]
  }

  # The IAO corpus-factory write-up §2.1.3: relation names; level and value must both be right.
  dimension "relation" {
    kind  = "leaf"
    paths = ["$..relName"]
  }

  # The IAO corpus-factory write-up §2.1.4: a behaviour is right when category, location,
  # modifiers and traffic are all right.
  dimension "behaviour" {
    kind  = "items"
    items = "$..behavior[*]"
    keys  = ["category", "location", "modifiers", "traffic"]
  }
}
