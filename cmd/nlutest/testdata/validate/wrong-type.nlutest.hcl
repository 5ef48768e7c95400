suite "类型" {}

materials "城市" {
  values = "北京"
}

template "查天气" {
  text = "{城市}天气"
  core = "yes"
}
