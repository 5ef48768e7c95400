# Every block and attribute of the suite language, once each at least,
# with values that load without a diagnostic. TestSensitiveEveryAttribute
# (extensions/secret_places_test.go) puts a sensitive variable in each
# attribute in turn; TestEveryAttributeCovered fails when a schema in the
# code has an attribute or block this file lacks.

suite "每个属性" {
  description = "every attribute"
  schema      = "全部"
  tags        = ["secrets"]
  targets     = ["bot"]
  defaults {
    level       = "S1"
    strategy    = "uniq"
    limit       = 100
    level_limit = { S3 = 20 }
  }
}

variable "secret" {
  default   = env("T35_SECRET", "")
  sensitive = true
}

variable "plain" {
  default     = "明文"
  description = "a value that is not secret"
  type        = string
  sensitive   = false
}

target "bot" {
  http {
    url         = "http://127.0.0.1:9/parse"
    method      = "POST"
    headers     = { X-Client = "测试" }
    body        = jsonencode({ text = case.text })
    reply       = response.reply
    tool_calls  = { path = "$.actions", name = "$.name", arguments = "$.args", result = "$.output", id = "$.id" }
    redirects   = "same-origin"
    ca_file     = "certs/ca.pem"
    client_cert = "certs/client.pem"
    client_key  = "certs/client.key"
  }
  timeout            = "10s"
  concurrency        = 2
  rate               = 5
  retries            = 1
  retry_on           = ["timeout", "5xx"]
  max_response_bytes = 1048576
  error_budget       = 0.01
}

target "rasa-bot" {
  rasa {
    url            = "http://127.0.0.1:9"
    headers        = { X-Client = "测试" }
    mode           = "webhook"
    tracker        = true
    tracker_token  = var.secret
    tracker_events = true
  }
}

target "llm" {
  openai {
    url            = "http://127.0.0.1:9/v1"
    model          = "qwen2.5-7b-instruct"
    api_key        = var.secret
    system         = "你是订票助手。"
    params         = { temperature = 0 }
    headers        = { X-Client = "测试" }
    session        = { user = true }
    content        = "text"
    tools          = ["search_flights", "book_flight"]
    max_tool_steps = 4
  }
}

target "llm-user" {
  openai {
    url   = "http://127.0.0.1:9/v1"
    model = "qwen2.5-7b-instruct"
  }
  simulator {
    system     = "扮演用户：{goal}{persona}"
    persona    = "一位着急的乘客"
    max_tokens = 128
  }
}

target "judge" {
  http {
    url  = "http://127.0.0.1:9/judge"
    body = { premise = judge.fact, hypothesis = judge.answer }
  }
  judge {
    verdict = response.label
  }
}

target "cmd" {
  exec {
    command = ["cat"]
    env     = { NLU_MODE = "test" }
    dir     = "."
  }
}

target "recorded" {
  replay {
    source = "recorded/results.jsonl"
  }
}

target "demo" {
  demo {
    endpoint = "booking"
  }
}

target "demo-variant" {
  demo {
    endpoint = "rasa"
    degrade  = 0.1
    seed     = "v1"
    flaky    = true
  }
}

schema "全部" {
  description = "the response of the bot"
  extends     = "rasa"
  ignore      = ["$.debug"]
  response = object({
    reply          = optional(string)
    label          = optional(string)
    score          = optional(number)
    order_id       = optional(string)
    order          = optional(list(string))
    intent         = optional(object({ name = string, confidence = optional(number) }))
    intent_ranking = optional(list(object({ name = string, confidence = number })))
    entities       = optional(list(object({ entity = string, value = any })))
    slots          = optional(map(any))
    ont            = optional(string)
  })

  dimension "intent" {
    kind               = "label"
    path               = "$.intent.name"
    ranking            = "$.intent_ranking[*].name"
    ranking_confidence = "$.intent_ranking[*].confidence"
    confidence         = "$.intent.confidence"
    min_confidence     = 0.5
    top_k              = 3
    labels             = ["book_flight", "oos"]
    out_of_scope       = "oos"
  }
  dimension "entity" {
    kind  = "items"
    items = "$.entities[*]"
    keys  = ["entity", "value"]
    type  = "entity"
    scope = ["city"]
  }
  dimension "ontology" {
    kind  = "leaf"
    paths = ["$.ont"]
  }
}

materials "城市" {
  tag    = "地点"
  level  = "M1"
  values = ["北京", "上海"]
  value "广州" {
    level     = "M2"
    normalize = { 全部 = "广州市" }
    tags      = ["南方"]
  }
}

materials "日期" {
  source = "data/dates.txt"
  level  = "M1"
}

materials "同义词" { values = ["订|预订"] }

materials "姓" { values = ["张", "王"] }

materials "名" { values = ["伟", "芳"] }

materials "全名" {
  level   = "M1"
  compose = ["{姓}{名}"]
}

split "smoke" { where = case.level == "S1" }

split "train" {
  fraction = 0.8
  seed     = "every"
}

threshold "accuracy" {
  condition = metrics.accuracy >= 0.5
  message   = "half the cases pass"
  severity  = "warn"
  history {
    metric   = metrics.accuracy
    window   = 10
    max_drop = 0.02
    alpha    = 0.05
    better   = "higher"
    min_runs = 3
  }
}

assert {
  condition = latency_ms < 5000
  message   = "fast enough"
  dimension = "intent"
}

statistics {
  confidence = 0.9
  resamples  = 500
  seed       = 7
}

coverage {
  domain           = "data/domain.yml"
  nlu              = "data/nlu.yml"
  flows            = "data/flows.yml"
  items            = "data/items.yml"
  intent_dimension = "intent"
  entity_dimension = "entity"
}

tool "search_flights" {
  description = "查询航班"
  parameters  = { type = "object", properties = { city = { type = "string" } } }
  case {
    when   = { "$.city" = "上海" }
    result = { flights = [] }
    effect {
      append = "searches"
      value  = args.city
    }
  }
  result = { flights = [{ id = "MU5101" }] }
  effect {
    set   = "last_search"
    value = args
  }
}

tool "book_flight" {
  description = "预订航班"
  result      = { order_id = "B-${args.flight_id}" }
  effect {
    append = "bookings"
    value  = args
  }
}

text_metrics {
  tokenize     = "zh"
  smooth       = "floor"
  smooth_value = 0.1
  lowest_by    = "f1"
}

ratings "第一轮" {
  source               = "ratings/round1.csv"
  format               = "csv"
  scale                = 5
  dimensions           = ["满意度"]
  keep_if_diff_at_most = 1
  raters               = 3
}

template "订机票" {
  text            = "帮我订一张{日期}去{城市}的机票"
  level           = "S1"
  core            = true
  scene           = ["出行", "机票"]
  tags            = ["booking"]
  strategy        = "product"
  limit           = 50
  count           = 10
  seed            = 7
  material_levels = ["M1", "M2"]
  reviewed        = true
  expect          = { "$.intent.name" = "book_flight" }
  tools {
    called     = ["search_flights"]
    not_called = ["book_flight"]
    args       = { "search_flights" = { "$.city" = "{城市}" } }
  }
  assert {
    condition = response.intent.confidence >= 0.5
    message   = "confident"
  }
  perturb {
    kinds      = ["swap", "synonym", "homophone"]
    count      = 2
    seed       = 7
    synonyms   = "同义词"
    homophones = [["在", "再"]]
  }
  reply {
    contains     = ["{城市}"]
    contains_any = ["好的", "确认"]
    not_contains = ["抱歉"]
    matches      = "订单号\\s*[A-Z0-9]+"
    one_of       = ["好的", "好的。"]
    ignore_case  = true
    similar      = { to = ["好的"], metric = "rougeL", min = 0.5 }
  }
  rubric "helpful" {
    judge    = "judge"
    criteria = "The reply is helpful."
    history  = false
    pass     = "score >= 3"
  }
}

template "问候" {
  text = "你好"
  reply { equals = "你好！" }
}

dataset "问答" {
  source          = "data/qa.jsonl"
  format          = "jsonl"
  id              = row.id
  text            = row.question
  expect          = { "$.intent.name" = row.intent }
  references      = row.answers
  min_f1          = 0.1
  min_exact_match = 0
  min_rouge1      = 0.1
  min_rouge2      = 0
  min_rougeL      = 0.1
  min_meteor      = 0
  level           = "S2"
  core            = false
  scene           = ["问答"]
  tags            = ["qa"]
  meta            = { domain = row.domain }
  assert { condition = http.status == 200 }
  perturb { kinds = ["width"] }
  reply { similar = { metric = "f1", min = 0.1 } }
  rubric "相关" {
    judge    = "judge"
    criteria = "The reply answers the question."
  }
}

fragment "确认下单" {
  turn {
    user    = "确认"
    capture = { order = "$.order_id" }
  }
}

conversation "订票" {
  level           = "S1"
  core            = true
  scene           = ["出行"]
  tags            = ["dialogue"]
  strategy        = "uniq"
  limit           = 10
  count           = 2
  seed            = 3
  material_levels = ["M1"]
  reviewed        = true
  turn {
    bot_first = true
    assert { condition = strcontains(reply, "欢迎") }
  }
  turn {
    user          = "我想去{城市}"
    expect        = { "$.intent.name" = "book_flight" }
    capture       = { order = "$.order_id" }
    capture_reply = { city = "去(.+)" }
    tools {
      called     = ["search_flights"]
      not_called = ["book_flight"]
      args       = { "search_flights" = { "$.city" = "{城市}" } }
      sequence   = ["search_flights"]
      mode       = "exact"
    }
    reply { contains = "{城市}" }
    rubric "礼貌" {
      judge    = "judge"
      criteria = "The reply is polite."
    }
  }
  turn { use = "确认下单" }
  tools {
    sequence = ["search_flights", "book_flight"]
    mode     = "in_order"
  }
  final_state {
    from   = "mocks"
    expect = { "$.bookings[0].city" = "{城市}" }
  }
}

scenario "订机票" {
  level           = "S1"
  core            = true
  scene           = ["出行", "订票"]
  tags            = ["sim"]
  strategy        = "uniq"
  limit           = 10
  count           = 2
  seed            = 1
  material_levels = ["M1"]
  goal {
    inform  = { city = "{城市}" }
    request = ["订单号"]
  }
  user         = "agenda"
  opening      = ["我想订机票"]
  asks         = { city = ["哪个城市"] }
  answer       = { city = ["去{城市}"] }
  confirm      = ["确认吗"]
  affirm       = ["确认"]
  request_text = "{name}是多少？"
  max_turns    = 6
  success {
    condition = strcontains(reply, "订单号")
    message   = "the bot gives the order number"
    dimension = "intent"
  }
  tools {
    sequence = ["search_flights", "book_flight"]
    mode     = "subset"
  }
  final_state {
    url     = "http://127.0.0.1:9/state"
    headers = { X-Client = "测试" }
    expect  = { "$.bookings[0].city" = "{城市}" }
  }
  task {
    domain    = "机票"
    offers    = { city = "$.slots.city", "订单号" = "reply:订单号\\s*(\\w+)" }
    reference = "final:$.bookings[0]"
    booked    = { city = "tool:book_flight:$.city" }
  }
  each_turn {
    tools {
      called     = []
      not_called = ["book_flight"]
    }
    reply { not_contains = ["系统错误"] }
    assert { condition = length(reply) < 200 }
  }
}

scenario "模型用户" {
  goal { inform = { city = "{城市}" } }
  user    = "llm-user"
  opening = ["我想订机票"]
  success { condition = strcontains(reply, "订单号") }
  final_state {
    from   = "mocks"
    expect = { "$.bookings[0].city" = "{城市}" }
  }
}

memory "个人信息" {
  level           = "S1"
  core            = false
  scene           = ["记忆"]
  tags            = ["memory"]
  strategy        = "uniq"
  limit           = 10
  count           = 2
  seed            = 1
  material_levels = ["M1"]
  fact {
    say    = "我叫{全名}。"
    ask    = ["我叫什么名字？"]
    expect = "{全名}"
    reply { not_contains = ["抱歉"] }
  }
  filler   = ["今天天气怎么样？"]
  distance = [0, 1]
  judge    = "contains"
  rubric "记得" {
    judge    = "judge"
    criteria = "The reply states the name."
  }
}

ranking "回复选择" {
  source            = "data/ranking.jsonl"
  score             = response.score
  positive_grade    = [4, 3]
  drop_single_class = true
  level             = "S1"
  core              = false
  scene             = ["闲聊"]
  tags              = ["ranking"]
}

ranking "排序" {
  source = "data/ranking.jsonl"
  order  = response.order
}

ranking "trec" {
  qrels = "data/qrels.txt"
  run   = "data/run.txt"
}
