# Response selection for chit-chat, as in Li, Zhang, Song (Tencent AI Lab),
# "面向非任务型对话系统的人工标注中文数据集": each question has candidate
# replies graded 0–5; the target scores every (question, candidate) pair
# and the candidates are ranked by score (ties in file order). P@1, MAP
# and MRR count a candidate as positive when its grade is at least N, for
# N = 3, 4, 5; questions whose candidates are all one class at N are
# dropped (and counted), as the paper does. The target replays scores
# recorded from a model, so the suite runs offline.

suite "chitchat-ranking" {
  description = "Ranking graded chit-chat replies: P@1, MAP, MRR at positive grades 3, 4, 5"
}

target "scorer" {
  replay {
    source = "recorded/scores.jsonl"
  }
}

ranking "回复选择" {
  source         = "data/questions.jsonl"
  score          = response.score
  positive_grade = [4, 3, 5]
  scene          = ["闲聊"]
}

threshold "selection" {
  condition = metrics.ranking.p_at_1 >= 0.6 && metrics.ranking.map >= 0.7 && metrics.ranking.mrr >= 0.7
}

threshold "strict" {
  condition = metrics.ranking.positive_grade["5"].map >= 0.5
}
