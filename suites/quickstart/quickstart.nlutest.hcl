# The quickstart suite: a bilingual travel assistant, tested against the
# demo NLU that nlutest embeds (no service to install).
#
#   go run ./cmd/nlutest run suites/quickstart
#
# Some cases fail the way a real NLU fails (a city it has never heard of, a
# cancellation it reads as a booking); the thresholds — the release gates —
# still pass, so the run exits 0.

suite "quickstart" {
  description = "Travel assistant NLU: intents and entities, Chinese and English"
  schema      = "rasa"
}

target "demo" {
  demo {}
  concurrency = 4
}

materials "城市" {
  tag    = "地点"
  level  = "M1"
  values = ["北京", "上海", "广州", "深圳", "成都", "杭州"]
}

materials "冷门城市" {
  tag    = "地点"
  level  = "M3"
  values = ["桂林", "大理", "拉萨"]
}

materials "日期" {
  tag    = "时间"
  level  = "M1"
  values = ["明天", "后天", "下周一", "周五"]
}

materials "city" {
  tag    = "place"
  values = ["Paris", "London", "Tokyo", "Singapore"]
}

materials "day" {
  tag    = "time"
  values = ["tomorrow", "next Monday", "Friday"]
}

template "订机票" {
  text  = "帮我订一张{日期}去{城市}的机票"
  level = "S1"
  core  = true
  scene = ["出行", "机票"]

  expect = {
    "$.intent.name"                           = "book_flight"
    "$.entities[?(@.entity == 'city')].value" = ["{城市}"]
    "$.entities[?(@.entity == 'date')].value" = ["{日期}"]
  }

  assert {
    condition = response.intent.confidence >= 0.5
    message   = "a clear booking request is recognised with confidence"
  }
}

template "book-flight" {
  text  = "book a flight to {city} {day}"
  level = "S1"
  core  = true
  scene = ["出行", "机票"]

  expect = {
    "$.intent.name"                           = "book_flight"
    "$.entities[?(@.entity == 'city')].value" = ["{city}"]
  }
}

template "查天气" {
  text  = "{日期}{城市}天气怎么样"
  level = "S1"
  core  = true
  scene = ["出行", "天气"]

  expect = {
    "$.intent.name"                           = "check_weather"
    "$.entities[?(@.entity == 'city')].value" = ["{城市}"]
  }
}

template "冷门城市机票" {
  # The demo's gazetteer knows 40 cities; these are not among them, so the
  # city is missed — a real recognition failure the report shows.
  text  = "我想订{日期}去{冷门城市}的机票"
  level = "S2"
  scene = ["出行", "机票"]

  expect = {
    "$.intent.name"                           = "book_flight"
    "$.entities[?(@.entity == 'city')].value" = ["{冷门城市}"]
  }
}

template "退订" {
  # 退订 contains 订: keyword-weighted NLUs read it as a booking (seed 000).
  text  = "我要退订{日期}去{城市}的机票"
  level = "S2"
  scene = ["出行", "退改"]

  expect = {
    "$.intent.name" = "cancel_booking"
  }
}

template "问候" {
  text     = "{问候语}"
  level    = "S1"
  core     = true
  scene    = ["闲聊"]
  strategy = "product"

  expect = {
    "$.intent.name" = "greet"
  }
}

materials "问候语" {
  values = ["你好", "您好", "hello", "hi there"]
}

split "smoke" {
  where = case.level == "S1"
}

threshold "smoke" {
  condition = metrics.split.smoke.accuracy >= 0.9
  message   = "core travel requests must keep working"
}

threshold "overall" {
  condition = metrics.accuracy >= 0.7
  message   = "at least 70% of all cases pass"
}

threshold "latency" {
  condition = metrics.latency.p95_ms < 500
  message   = "the NLU answers within 500 ms for 95% of requests"
}
