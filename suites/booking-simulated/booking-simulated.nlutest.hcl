# The booking-simulated suite: the demo's booking bot (docs/demo.md, "The
# booking bot") tested by a simulated user instead of a fixed script.
#
#   go run ./cmd/nlutest run suites/booking-simulated
#
# A session the user opens with "帮我订张机票" goes another way: the bot
# asks for the date first, confirms the date on its own ("后天出发，对吗？")
# and asks for the city in other words ("请问您的目的地是？"). The fixed
# script below, written for the city-first dialogue, breaks on it at
# every instance; the agenda simulator (scenario "订机票") answers what
# the bot actually asks and books every flight, whichever opening it
# picks. The gate is the simulated success rate; the fixed script's task
# completion is a warning, so the run exits 0.

suite "booking-simulated" {
  description = "Flight-booking bot driven by a deterministic simulated user (agenda simulator) and by a fixed script"
}

target "booking-bot" {
  demo {
    endpoint = "booking"
  }
  concurrency = 4
}

materials "城市" {
  tag    = "地点"
  values = ["北京", "上海", "广州", "成都"]
}

materials "日期" {
  tag    = "时间"
  values = ["明天", "后天"]
}

scenario "订机票" {
  strategy = "product"
  level    = "S1"
  core     = true
  scene    = ["出行", "订票"]
  goal {
    inform  = { city = "{城市}", date = "{日期}" }
    request = ["订单号"]
  }
  user      = "agenda"
  opening   = ["我想订机票", "帮我订张机票"]
  asks      = { city = ["哪个城市", "去哪里", "目的地"], date = ["哪天"] }
  answer    = { city = ["去{城市}", "{城市}"] }
  confirm   = ["确认吗", "对吗"]
  affirm    = ["确认", "是的"]
  max_turns = 8
  success {
    condition = length(regexall("订单号\\s*BK[0-9A-F]{6}", reply)) > 0
  }
  each_turn {
    reply {
      not_contains = ["没听懂"]
    }
  }
}

conversation "固定脚本" {
  strategy = "product"
  scene    = ["出行", "订票"]
  turn {
    user = "帮我订张机票"
  }
  turn {
    user = "去{城市}"
  }
  turn {
    user = "{日期}"
  }
  turn {
    user = "确认"
    assert {
      condition = length(regexall("订单号\\s*BK[0-9A-F]{6}", reply)) > 0
      message   = "the fixed script's confirmation books the flight"
    }
  }
}

threshold "模拟用户任务完成率" {
  condition = metrics.scenario.success_rate >= 1
}

threshold "模拟用户不卡住" {
  condition = metrics.scenario.stuck == 0
}

threshold "固定脚本任务完成率" {
  condition = metrics.conversation["固定脚本"].dialogue.task_completion >= 1
  severity  = "warn"
  message   = "a fixed script cannot follow a bot that asks in another order"
}
