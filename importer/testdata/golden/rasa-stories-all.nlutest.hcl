# Imported by nlutest import from Rasa end-to-end tests initial_project_test_stories.yml.
# The mapping of each step: docs/cli.md#import.

suite "initial_project_test_stories" {
  description = "Imported from Rasa end-to-end tests initial_project_test_stories.yml"
}

# The Rasa server under test (rasa run --enable-api), through its REST channel.
variable "rasa_url" { default = env("RASA_URL", "http://127.0.0.1:5005") }

target "rasa" {
  rasa {
    url     = var.rasa_url
    mode    = "webhook"
    tracker = true
  }
}

# from initial_project_test_stories.yml:5
conversation "happy path 1" {
  turn {
    user = "hello there!"
    expect = {
      "state:$.latest_message.intent.name" = "greet"
    }
    reply {
      contains = ["Hey! How are you?"]
    }
  }

  turn {
    user = "amazing"
    expect = {
      "state:$.latest_message.intent.name" = "mood_great"
    }
    reply {
      contains = ["Great, carry on!"]
    }
  }
}

# from initial_project_test_stories.yml:16
conversation "happy path 2" {
  turn {
    user = "hello there!"
    expect = {
      "state:$.latest_message.intent.name" = "greet"
    }
    reply {
      contains = ["Hey! How are you?"]
    }
  }

  turn {
    user = "amazing"
    expect = {
      "state:$.latest_message.intent.name" = "mood_great"
    }
    reply {
      contains = ["Great, carry on!"]
    }
  }

  turn {
    user = "bye-bye!"
    expect = {
      "state:$.latest_message.intent.name" = "goodbye"
    }
    reply {
      contains = ["Bye"]
    }
  }
}

# from initial_project_test_stories.yml:31
conversation "sad path 1" {
  turn {
    user = "hello"
    expect = {
      "state:$.latest_message.intent.name" = "greet"
    }
    reply {
      contains = ["Hey! How are you?"]
    }
  }

  turn {
    user = "not good"
    expect = {
      "state:$.latest_message.intent.name" = "mood_unhappy"
    }
    reply {
      contains = ["Here is something to cheer you up:", "Did that help you?"]
    }
  }

  turn {
    user = "yes"
    expect = {
      "state:$.latest_message.intent.name" = "affirm"
    }
    reply {
      contains = ["Great, carry on!"]
    }
  }
}

# from initial_project_test_stories.yml:47
conversation "sad path 2" {
  turn {
    user = "hello"
    expect = {
      "state:$.latest_message.intent.name" = "greet"
    }
    reply {
      contains = ["Hey! How are you?"]
    }
  }

  turn {
    user = "not good"
    expect = {
      "state:$.latest_message.intent.name" = "mood_unhappy"
    }
    reply {
      contains = ["Here is something to cheer you up:", "Did that help you?"]
    }
  }

  turn {
    user = "not really"
    expect = {
      "state:$.latest_message.intent.name" = "deny"
    }
    reply {
      contains = ["Bye"]
    }
  }
}

# from initial_project_test_stories.yml:63
conversation "sad path 3" {
  turn {
    user = "hi"
    expect = {
      "state:$.latest_message.intent.name" = "greet"
    }
    reply {
      contains = ["Hey! How are you?"]
    }
  }

  turn {
    user = "very terrible"
    expect = {
      "state:$.latest_message.intent.name" = "mood_unhappy"
    }
    reply {
      contains = ["Here is something to cheer you up:", "Did that help you?"]
    }
  }

  turn {
    user = "no"
    expect = {
      "state:$.latest_message.intent.name" = "deny"
    }
    reply {
      contains = ["Bye"]
    }
  }
}

# from initial_project_test_stories.yml:79
template "say goodbye" {
  text = "bye-bye!"
  expect = {
    "state:$.latest_message.intent.name" = "goodbye"
  }
  reply {
    contains = ["Bye"]
  }
}

# from initial_project_test_stories.yml:86
template "bot challenge" {
  text = "are you a bot?"
  expect = {
    "state:$.latest_message.intent.name" = "bot_challenge"
  }
  reply {
    contains = ["I am a bot, powered by Rasa."]
  }
}

# Problems:
# 
