suite "全角逗号" {}

materials "城市" {
  values = ["北京"，"上海"]
}

template "查天气" {
  text = "{城市}明天天气怎么样"
}
