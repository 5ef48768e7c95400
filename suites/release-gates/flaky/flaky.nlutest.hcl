# The release-gates suite's flaky cases: the demo NLU with flaky = true
# (docs/demo.md, "Quality knobs") answers a close call — two intents within
# 0.05 of each other — with the runner-up on even repetitions, as a model
# sampling its answer would. Run it repeated:
#
#   go run ./cmd/nlutest run suites/release-gates/flaky --repeat 5
#
# 帮我订去{城市}的票 and "book a ticket to Paris" tie book_flight with
# book_train (a ticket, but which kind?): they pass in repetitions 1, 3, 5
# and fail in 2 and 4 (PFPFP), so the report lists them as flaky; 退订
# reads as a booking every time (the demo's weakness 2), so those two are
# consistent failures, listed apart. cmd/nlutest/release_gates_test.go
# counts every figure by hand.

suite "release-gates-flaky" {
  description = "Flaky cases under --repeat: close calls of a sampling bot, apart from consistent failures"
  schema      = "rasa"
}

target "demo" {
  demo {
    flaky = true
  }
  concurrency = 4
}

materials "城市" {
  tag    = "地点"
  values = ["北京", "上海"]
}

materials "日期" {
  tag    = "时间"
  values = ["明天", "后天"]
}

template "订机票" {
  text     = "帮我订一张{日期}去{城市}的机票"
  strategy = "product"

  expect = {
    "$.intent.name" = "book_flight"
  }
}

template "订票" {
  # 票 alone: book_flight and book_train tie.
  text     = "帮我订去{城市}的票"
  strategy = "product"

  expect = {
    "$.intent.name" = "book_flight"
  }
}

template "book-ticket" {
  text = "book a ticket to Paris"

  expect = {
    "$.intent.name" = "book_flight"
  }
}

template "退订" {
  text     = "我要退订{城市}的机票"
  strategy = "product"

  expect = {
    "$.intent.name" = "cancel_booking"
  }
}

threshold "flaky" {
  condition = metrics.repeat.flaky <= 3
  message   = "at most the three known close calls are flaky"
}

threshold "pass^5" {
  condition = metrics.template.订机票.repeat.pass_all_k == 1
  message   = "a clear booking request passes in every repetition"
}
