# The memory suite judged by a target instead of the built-in contains
# judge: every answer the bot gives to a memory question is sent to a judge
# target, whose judge block reads the verdict from its response. Here the
# judge is the demo's toy NLI endpoint; in a real suite it is an NLI
# service (http) or an LLM (openai) — docs/language.md, judge targets.
#
#   go run ./cmd/nlutest run suites/memory-nli
#   go run ./cmd/nlutest eval RUN_DIR   # re-judges from the recorded judgements, calling nothing

suite "memory-nli" {
  description = "Does the chatbot remember what it was told? (answers judged by an NLI target)"
}

target "bot" {
  demo {
    endpoint = "memory"
  }
  concurrency = 4
}

target "nli" {
  demo {
    endpoint = "nli" # sends {premise = judge.fact, hypothesis = judge.answer, expect = judge.expect}
  }
  judge {
    verdict = response.label
  }
}

materials "姓名" {
  values = ["张伟", "王芳", "李雷", "韩梅梅"]
}

materials "城市" {
  values = ["北京", "上海", "广州", "成都"]
}

memory "个人信息" {
  scene = ["闲聊", "记忆"]
  fact {
    say    = "我叫{姓名}。"
    ask    = ["我叫什么名字？", "你还记得我的名字吗？"]
    expect = "{姓名}"
  }
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪个城市？"
    expect = "{城市}"
  }
  filler   = ["今天天气怎么样？", "给我讲个笑话。", "推荐一部电影。"]
  distance = [0, 1, 2, 4, 8]
  judge    = "nli"
}

threshold "near" {
  condition = metrics.memory.distance["0"].score >= 1 && metrics.memory.distance["1"].score >= 1
  message   = "facts told in the last few turns are remembered"
}

threshold "judged" {
  condition = metrics.memory.unparseable == 0
  message   = "the judge gave a verdict for every answer"
}

threshold "overall" {
  condition = metrics.memory.score >= 0.4
  message   = "at least 40% of all memory questions are answered right"
}
