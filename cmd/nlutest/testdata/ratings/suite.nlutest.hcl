suite "闲聊评分" {}

materials "问题" {
  values = ["你好呀", "今天心情不好", "给我讲个笑话", "你喜欢什么颜色"]
}

template "闲聊" {
  text = "{问题}"
}

target "回声" {
  echo {
    intent = "chat"
  }
}

ratings "第一轮" {
  source               = "sheet.csv"
  scale                = 5
  dimensions           = ["满意度", "拟人性"]
  keep_if_diff_at_most = 1
  raters               = 2
}

ratings "三人" {
  source     = "three.jsonl"
  dimensions = ["满意度"]
  raters     = 3
}

threshold "满意" {
  condition = metrics.ratings["第一轮"].dimension["满意度"].mean >= 3.5 && metrics.ratings["第一轮"].dimension["满意度"].cohen_kappa >= 0.3
}

threshold "一致" {
  condition = metrics.ratings["三人"].dimension["满意度"].fleiss_kappa >= 0.2
}
