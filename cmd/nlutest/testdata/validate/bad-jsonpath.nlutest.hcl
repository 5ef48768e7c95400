suite "路径" {}

materials "城市" {
  values = ["北京"]
}

template "订机票" {
  text = "订去{城市}的机票"
  expect = {
    "$.entities[?(@.entity == 'city'].value" = ["{城市}"]
    "$.data.[0].content.ont"                 = "SIM_Card"
  }
}
