suite "评分范围" {}

target "评委" {
  http {
    url  = "http://127.0.0.1:9/judge"
    body = { answer = judge.answer }
  }
  judge {
    verdict = response.label
  }
}

conversation "问候" {
  turn {
    user = "你好"
    rubric "有用" {
      judge    = "评委"
      criteria = "The reply is helpful."
      pass     = "score >= 6"
    }
    rubric "礼貌" {
      judge    = "评委"
      criteria = "The reply is polite."
      pass     = score > 0
    }
  }
}
