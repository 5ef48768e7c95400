# The agent-tools suite: the demo's tool-using agent (docs/demo.md, "The
# agent") over OpenAI's chat-completions API, its tools answered by the mock
# tools below, so it runs in CI with no backend.
#
#   go run ./cmd/nlutest run suites/agent-tools
#
# It checks what the agent called (tools blocks: called, not_called, the
# arguments by JSONPath, and a conversation's sequence in each of the five
# modes) and what it left behind (final_state: the bookings the mock tools
# recorded), as tau-bench judges an agent by its database. The agent has two
# planted defects and the suite finds both: a flight-status question calls
# search_flights (subset fails, flight_status is never called), and for 广州
# the date argument is dropped (args fail, and the booking recorded has no
# date). The gates hold where the agent is sound — tool-call F1 and the
# sequences of the booking flows — and keep the defects visible as warnings,
# so the run exits 0. The simulated booking's task block gives MultiWOZ's
# inform, success and book rates (metrics.task) from the agent's calls, its
# reply and the mocks' bookings. cmd/nlutest/agent_tools_test.go counts every
# figure by hand.

suite "agent-tools" {
  description = "Tool-using travel agent: tool calls, arguments, call sequences and the bookings left behind"
}

target "agent" {
  demo {
    endpoint = "agent"
  }
  concurrency = 4
}

materials "城市" {
  tag    = "地点"
  values = ["上海", "广州"]
}

materials "日期" {
  tag    = "时间"
  values = ["明天"]
}

materials "航班号" {
  tag    = "航班"
  values = ["CA1234", "MU5101"]
}

tool "search_flights" {
  description = "查询去某城市某天的航班"
  parameters = {
    type       = "object"
    properties = { city = { type = "string" }, date = { type = "string" }, flight_no = { type = "string" } }
  }
  result = { flights = [{ id = "MU5101" }, { id = "CA1858" }] }
}

tool "book_flight" {
  description = "预订航班"
  parameters = {
    type       = "object"
    properties = { city = { type = "string" }, date = { type = "string" }, flight_id = { type = "string" } }
    required   = ["city", "date", "flight_id"]
  }
  result = { order_id = "B-${args.flight_id}" }
  effect {
    append = "bookings"
    value  = args
  }
}

tool "get_weather" {
  description = "查询天气"
  parameters = {
    type       = "object"
    properties = { city = { type = "string" }, date = { type = "string" } }
    required   = ["city"]
  }
  result = { weather = "晴", temperature = 25 }
}

tool "flight_status" {
  description = "查询航班状态"
  parameters = {
    type       = "object"
    properties = { flight_no = { type = "string" } }
    required   = ["flight_no"]
  }
  result = { status = "准点" }
}

tool "cancel_booking" {
  description = "取消订单"
  parameters = {
    type       = "object"
    properties = { order_id = { type = "string" } }
    required   = ["order_id"]
  }
  case {
    when   = { "$.order_id" = "B-MU5101" }
    result = { cancelled = true }
    effect {
      append = "cancelled"
      value  = args.order_id
    }
  }
  result = { error = "no such order" }
}

# One question, one search: the date is dropped for 广州.
template "查航班" {
  text  = "帮我查一下{日期}去{城市}的航班"
  scene = ["出行", "查询"]
  tools {
    called     = ["search_flights"]
    not_called = ["book_flight"]
    args       = { "search_flights" = { "$.city" = "{城市}", "$.date" = "{日期}" } }
  }
}

# exact: a booking is a search, then the booking, nothing else.
conversation "订机票" {
  scene = ["出行", "订票"]
  turn {
    user = "帮我订{日期}去{城市}的机票"
    tools {
      called = ["search_flights", "book_flight"]
      args   = { "book_flight" = { "$.city" = "{城市}", "$.date" = "{日期}" } }
    }
    reply {
      contains = ["订单号"]
    }
  }
  tools {
    sequence = ["search_flights", "book_flight"]
    mode     = "exact"
  }
  final_state {
    from   = "mocks"
    expect = { "$.bookings[0].city" = "{城市}", "$.bookings[0].date" = "{日期}" }
  }
}

# in_order: the slots come one turn at a time; no tool before both are known.
conversation "分步订票" {
  scene = ["出行", "订票"]
  turn {
    user = "我想订机票"
    tools { called = [] }
  }
  turn {
    user = "去{城市}"
    tools { called = [] }
  }
  turn {
    user = "{日期}"
    tools {
      called = ["search_flights", "book_flight"]
      args   = { "book_flight" = { "$.date" = "{日期}" } }
    }
  }
  tools {
    sequence = ["search_flights", "book_flight"]
    mode     = "in_order"
  }
  final_state {
    from   = "mocks"
    expect = { "$.bookings[0].date" = "{日期}" }
  }
}

# any_order: two cities' weather in one answer (parallel calls).
conversation "两地天气" {
  scene = ["出行", "天气"]
  turn {
    user = "{城市}和北京明天天气怎么样"
    tools {
      called     = ["get_weather", "get_weather"]
      not_called = ["search_flights"]
      args       = { "get_weather" = { "$.city" = "{城市}" } }
    }
  }
  tools {
    sequence = ["get_weather", "get_weather"]
    mode     = "any_order"
  }
}

# subset: a status question may only call flight_status; the agent
# searches flights instead.
conversation "航班状态" {
  scene = ["出行", "查询"]
  turn {
    user = "{航班号}航班状态怎么样"
    tools {
      called = ["flight_status"]
      args   = { "flight_status" = { "$.flight_no" = "{航班号}" } }
    }
  }
  tools {
    sequence = ["flight_status"]
    mode     = "subset"
  }
}

# superset: search, book, then cancel; the cancellation is recorded.
conversation "查询再订" {
  scene = ["出行", "订票"]
  turn {
    user = "帮我查一下{日期}去{城市}的航班"
    tools { called = ["search_flights"] }
  }
  turn {
    user = "帮我订{日期}去{城市}的机票"
    tools { called = ["search_flights", "book_flight"] }
  }
  turn {
    user = "取消订单B-MU5101"
    tools { called = ["cancel_booking"] }
  }
  tools {
    sequence = ["search_flights", "book_flight", "cancel_booking"]
    mode     = "superset"
  }
  final_state {
    from   = "mocks"
    expect = { "$.cancelled" = ["B-MU5101"], "$.bookings[0].city" = "{城市}" }
  }
}

# A simulated user books; the scenario is judged by its reply and by the
# booking left behind.
scenario "模拟订票" {
  scene = ["出行", "订票"]
  goal {
    inform  = { city = "{城市}", date = "{日期}" }
    request = ["订单号"]
  }
  opening   = ["我想订机票"]
  asks      = { city = ["哪个城市"], date = ["哪天"] }
  max_turns = 6
  success {
    condition = strcontains(reply, "订单号")
  }
  each_turn {
    tools { not_called = ["cancel_booking"] }
  }
  tools {
    sequence = ["search_flights", "book_flight"]
    mode     = "exact"
  }
  final_state {
    from   = "mocks"
    expect = { "$.bookings[0].date" = "{日期}" }
  }
  # MultiWOZ's figures (metrics.task) from what the agent did: the flight
  # it booked is the offer (book_flight's arguments), the order number in
  # its reply the answer, the mocks' last booking what was booked.
  task {
    domain = "机票"
    offers = { city = "tool:book_flight:$.city", date = "tool:book_flight:$.date", "订单号" = "reply:订单号\\s*(B-[A-Z0-9]+)" }
    booked = { city = "final:$.bookings[-1].city", date = "final:$.bookings[-1].date" }
  }
}

threshold "工具调用F1" {
  condition = metrics.tools.f1 >= 0.8
  message   = "the agent calls the tools the turns expect"
}

threshold "订票顺序" {
  condition = metrics.tools.mode["exact"].pass_rate >= 1 && metrics.tools.mode["in_order"].pass_rate >= 1
  message   = "a booking is a search, then the booking"
}

threshold "参数准确率" {
  condition = metrics.tools.argument_accuracy >= 0.9
  message   = "known defect: the date is dropped for 广州"
  severity  = "warn"
}

threshold "终态" {
  condition = metrics.tools.final_state_rate >= 0.9
  message   = "known defect: 广州's booking has no date"
  severity  = "warn"
}

threshold "航班状态" {
  condition = metrics.tools.tool["flight_status"].recall >= 0.9
  message   = "known defect: a status question searches flights"
  severity  = "warn"
}
