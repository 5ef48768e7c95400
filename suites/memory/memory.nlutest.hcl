# The memory suite (the chatbot memory-test patent 一种测试方法、装置、设备及
# 计算机可读存储介质): tell the bot facts, talk about other things for a
# while, then ask about the facts. The demo memory bot remembers a fact for
# 4 turns, misremembers it for 4 more (a contradiction) and then forgets
# it (neutral), so the memory score falls with the distance.
#
#   go run ./cmd/nlutest run suites/memory

suite "memory" {
  description = "Does the chatbot remember what it was told?"
}

target "demo" {
  demo {
    endpoint = "memory"
  }
  concurrency = 4
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
}

threshold "near" {
  condition = metrics.memory.distance["0"].score >= 1 && metrics.memory.distance["1"].score >= 1
  message   = "facts told in the last few turns are remembered"
}

threshold "overall" {
  condition = metrics.memory.score >= 0.4
  message   = "at least 40% of all memory questions are answered right"
}
