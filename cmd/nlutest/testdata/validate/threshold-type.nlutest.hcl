suite "阈值类型" {}

materials "城市" {
  values = ["北京", "上海"]
}

template "查天气" {
  text   = "{城市}天气"
  expect = { "$.intent.name" = "weather" }
}

threshold "准确率" {
  condition = metrics.accuracy >= "high"
}

threshold "模板" {
  condition = metrics.template["查天气"].accuracy == "1"
}

threshold "延迟" {
  condition = metrics.latency.p95_ms
}
