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
    # reviewer: the phone number is echoed
    "$.data.[0].content.des.phone_number" = "{手机号11位}" # 原样返回
    "$.msg" = "" # gone from the draft: this comment moves to the top
  }

  assert {
    condition = response.code == 200 # 200 means recognised
  }
}

template "without-expect" {
    # indented by four
    text = "{查询操作}{手机号11位}"

    assert {
        condition = true
    }
}

# trailing comment at the end of the file
