# OpenAI-compatible chat completions response.
schema "openai-chat" {
  description = "OpenAI chat completions: choices with messages, usage"
  response = object({
    id    = optional(string)
    model = optional(string)
    choices = list(object({
      index         = optional(number)
      finish_reason = optional(string)
      message = object({
        role    = string
        content = string
      })
    }))
    usage = optional(any)
  })
}
