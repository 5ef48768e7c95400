suite "占位符" {}

materials "手机号11位" {
  values = ["13301791708"]
}

template "hotel" {
  text = "查询{手机号}的酒店同房间人员"
  expect = {
    "$.data[0].content.des.phone_number" = "{手机号11位}"
  }
}
