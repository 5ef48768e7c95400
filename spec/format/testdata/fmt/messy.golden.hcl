# 格式化：对齐、空格、缩进
suite "fmt" {
  description = "中文描述" # 注释
  schema      = "rasa"
}

materials "城市" {
  values = ["北京", "上海"]
  tag    = "地点"
}

template "订机票" {
  text = "订一张去{城市}的机票"
  expect = {
    "$.intent.name"                           = "book_flight"
    "$.entities[?(@.entity == 'city')].value" = ["{城市}"]
  }
  assert {
    condition = response.intent.confidence >= 0.5
    message   = <<-EOT
    多行
      消息
    EOT
  }
}
