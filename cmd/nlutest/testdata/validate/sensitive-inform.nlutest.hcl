suite "目标密钥" {}

variable "pin" {
  default   = env("BANK_PIN", "")
  sensitive = true
}

scenario "查余额" {
  goal {
    inform  = { 卡号 = "6222", 密码 = upper(var.pin) }
    request = ["余额"]
  }
  opening = ["我想查余额"]
  success { condition = strcontains(reply, "余额") }
}
