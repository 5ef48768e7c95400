# The booking-task suite: the demo's booking bot (docs/demo.md, "The
# booking bot") judged by task success as MultiWOZ evaluates a dialogue
# system (docs/metrics.md, "Task"): did the flight the bot offered meet the
# user's goal (inform rate), did the user get what it asked for (success
# rate), was the right flight booked (book rate), and did the bot answer
# what was asked and nothing else (inform precision, recall, F1).
#
#   go run ./cmd/nlutest run suites/booking-task
#
# The bot reads 大后天 (in three days) as 后天 (planted weakness 2): it
# offers and books the flight for the wrong day, so the two 大后天
# instances of 订机票 are not informed and do not succeed, and their
# bookings are half right. 问航班号 asks for a flight number the bot never
# gives, and gets an order number it did not ask for. The hand count is in
# cmd/nlutest/booking_task_test.go; the gates that the planted failures
# break are warnings, so the run exits 0.

suite "booking-task" {
  description = "Flight-booking bot: MultiWOZ inform, success and book rates and inform precision/recall/F1 over simulated dialogues"
}

target "booking-bot" {
  demo {
    endpoint = "booking"
  }
  concurrency = 4
}

materials "城市" {
  tag    = "地点"
  values = ["北京", "上海"]
}

materials "日期" {
  tag    = "时间"
  values = ["明天", "大后天"]
}

scenario "订机票" {
  strategy = "product"
  scene    = ["出行", "订票"]
  goal {
    inform  = { city = "{城市}", date = "{日期}" }
    request = ["订单号"]
  }
  opening   = ["我想订机票"]
  asks      = { city = ["哪个城市", "去哪里"], date = ["哪天"] }
  answer    = { city = ["去{城市}"] }
  confirm   = ["确认吗"]
  affirm    = ["确认"]
  max_turns = 6
  success {
    condition = length(regexall("订单号\\s*BK[0-9A-F]{6}", reply)) > 0
  }
  task {
    domain    = "机票"
    offers    = { city = "$.slots.city", date = "$.slots.date", "订单号" = "$.order_id" }
    reference = "$.order_id"
    booked    = { city = "$.slots.city", date = "$.slots.date" }
  }
}

scenario "问航班号" {
  strategy = "product"
  scene    = ["出行", "查询"]
  goal {
    inform  = { city = "{城市}", date = "明天" }
    request = ["航班号"]
  }
  opening   = ["我想订机票"]
  asks      = { city = ["哪个城市", "去哪里"], date = ["哪天"] }
  confirm   = ["确认吗"]
  affirm    = ["确认"]
  max_turns = 6
  success {
    condition = strcontains(reply, "航班号")
  }
  task {
    domain = "航班信息"
    offers = { city = "$.slots.city", date = "$.slots.date", "航班号" = "$.flight_no", "订单号" = "$.order_id" }
  }
}

threshold "订票成功率" {
  condition = metrics.task.domain["机票"].success_rate >= 0.9
  message   = "known defect: 大后天 is booked as 后天"
  severity  = "warn"
}

threshold "告知率" {
  condition = metrics.task.inform_rate >= 0.6
  message   = "the flight offered meets the goal"
}

threshold "告知F1" {
  condition = metrics.task.inform_f1 >= 0.9
  message   = "known defect: no flight number, an order number nobody asked for"
  severity  = "warn"
}
