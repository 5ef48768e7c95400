suite "未知属性" {}

materials "城市" {
  values = ["北京"]
}

template "订机票" {
  text    = "去{城市}的机票"
  expcet  = { "$.intent.name" = "book_flight" }
}
