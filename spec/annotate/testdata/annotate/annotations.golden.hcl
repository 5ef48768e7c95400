# Expectations drafted by `nlutest annotate`.

template "hotel-roommates" {
  expect = {
    # drafted by nlutest annotate for s.nlutest.hcl:15
    # disagreement: $.data[0].content.rel[0].relIdx is [0, "13-19"] in case a, [0, "14-19"] in case b
    "$.code" = 200
  }
  reviewed = false
}

template "订机票" {
  expect = {
    # drafted by nlutest annotate for s.nlutest.hcl:15
    "$.intent.name" = "book_flight"
  }
  reviewed = false
}
