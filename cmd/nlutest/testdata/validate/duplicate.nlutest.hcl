suite "重复" {}

materials "城市" {
  values = ["北京"]
}

template "查天气" {
  text = "{城市}天气"
}

template "查天气" {
  text = "{城市}的天气怎么样"
}
