# Imported by nlutest import from Botium convos in botium-zh.
# The mapping of each step: docs/cli.md#import.

suite "botium-zh" {
  description = "Imported from Botium convos in botium-zh"
}

# The bot under test. Botium reached it through a connector; this target
# talks to Rasa's REST channel. For another bot, replace the rasa block
# with an http block for its API (docs/language.md#target).
variable "bot_url" { default = env("BOT_URL", "http://127.0.0.1:5005") }

target "bot" {
  rasa {
    url  = var.bot_url
    mode = "webhook"
  }
}

materials "BOOK_FLIGHT" {
  values = ["我想订一张去北京的机票", "帮我订去上海的机票"]
}

# from 天气.convo.txt:1
template "查天气" {
  text = "北京天气怎么样"
  assert {
    condition = strcontains(reply, "北京") && strcontains(reply, "晴")
    message   = "Botium 天气.convo.txt:7: TEXT_CONTAINS_ALL 北京|晴"
  }
}

# 手写的中文样例：问候、订票、确认日期。
# from 订机票.convo.txt:1
conversation "订机票" {
  turn {
    user = "你好"
    assert {
      condition = length(regexall("(?i)(?s)您好.*请问", reply)) > 0
      message   = "Botium 订机票.convo.txt:8: 您好*请问"
    }
  }

  turn {
    user = "{BOOK_FLIGHT}"
    assert {
      condition = strcontains(reply, "出发日期") || strcontains(reply, "哪天")
      message   = "Botium 订机票.convo.txt:14: TEXT_CONTAINS_ANY 出发日期|哪天"
    }
  }

  turn {
    user = "明天"
    assert {
      condition = !strcontains(lower(reply), lower("抱歉"))
      message   = "Botium 订机票.convo.txt:20: 抱歉"
    }
    assert {
      condition = length(regexall("订单号[0-9]+", reply)) > 0
      message   = "Botium 订机票.convo.txt:21: TEXT_REGEXP_ANY 订单号[0-9]+"
    }
  }
}

# Problems:
# 
