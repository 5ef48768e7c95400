suite "未知块" {}

templte "订机票" {
  text = "订机票"
}
