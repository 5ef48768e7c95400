suite "语法" {
  schema　= "rasa"
}
