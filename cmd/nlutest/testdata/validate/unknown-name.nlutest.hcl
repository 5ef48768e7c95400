suite "未知名称" {
  schema = "rasa"
}

materials "城市" {
  values = ["北京"]
}

template "订机票" {
  text = "订去{城市}的机票"
  assert {
    condition = response.intnet.name == "book_flight"
  }
  assert {
    condition = contains(case.tag, "机票")
  }
}

threshold "准确率" {
  condition = metrics.split.smoke.accuracy >= var.min_accuracy
}
