# 酒店同住查询 — a suite full of comments that annotate --write must keep.
suite "注释" {
  schema = "IAO" # the response schema
}

/* block comment
   over two lines */
materials "查询操作" { values = ["查询", "查一下"] }
materials "手机号11位" { values = ["13301791708", "13612349005"] }
materials "伴随关系" {
  value "酒店同房间" { normalize = { IAO = "酒店同房间同宿" } }
}

// the template under review
template "hotel-roommates" {
  text  = "{查询操作}{手机号11位}的{伴随关系}人员" # the IAO corpus-factory write-up §4.1.3
  level = "S1"

  # the old expectations; the phone comment must survive
  expect = {
    # drafted by nlutest annotate from target "demo" (1 sample, 2 probe calls)
    # sample 6d47b2342ceb4c34: "查询13301791708的酒店同房间人员"
    # disagreement: $.data[0].content.rel[0].relIdx is [0, "13-19"] in case a, [0, "14-19"] in case b
    # comments of the replaced expect on paths no longer proposed:
    # gone from the draft: this comment moves to the top
    "$.code" = 200
    # reviewer: the phone number is echoed
    "$.data[0].content.des.phone_number"      = "{手机号11位}" # 原样返回
    "$.data[0].content.rel[0].ont"            = ["SIM_Card", "Person"]
    "$.data[0].content.rel[0].rel[0].relName" = "{伴随关系}"
    # note: $.data[0].content_op: kept literal "查询": it equals {查询操作} here, but the answer stayed the same with {查询操作} = 查一下
    "$.data[0].content_op" = "查询"
    "$.data[0].tpl"        = "$${{x}} %%{{y}} {{z}}"
  }

  assert {
    condition = response.code == 200 # 200 means recognised
  }

  reviewed = false
}

template "without-expect" {
    # indented by four
    text = "{查询操作}{手机号11位}"

    assert {
        condition = true
    }

    expect = {
        # drafted by nlutest annotate from target "demo" (1 sample, 2 probe calls)
        "$.code"                             = 200
        "$.data[0].content.des.phone_number" = "{手机号11位}"
    }
    reviewed = false
}

# trailing comment at the end of the file
