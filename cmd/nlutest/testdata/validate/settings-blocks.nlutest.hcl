# The settings blocks the metric families decode (text_metrics, statistics,
# coverage) and a JSONL materials file with Chinese rows: every mistake is
# reported in one pass, in the order and at the places spec's loader gave.
suite "设置" {}
target "天气" {
  http {
    url = "http://127.0.0.1:9/parse"
  }
}
materials "城市" { source = "settings-blocks.jsonl" }
template "问天气" {
  text = "{城市}天气怎么样"
}
text_metrics {
  tokenize  = "xx"
  lowest_by = "f2"
}
statistics {
  confidence = 95
  resampels  = 2000
}
coverage {
  nlu              = "nlu.yml"
  items            = "清单.yml"
  intent_dimension = "意图"
}
text_metrics {}
