package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/spec"
)

// initEngines are the engines `nlutest init --engine` scaffolds a target
// for. Every scaffold's first target is the embedded demo NLU, so the new
// suite validates and runs at once; the engine's own target comes second
// and is picked with --target.
var initEngines = map[string]string{
	"demo": "",
	"rasa": `
# Your Rasa server (rasa run --enable-api): nlutest run {{.Dir}} --target rasa
variable "rasa_url" { default = env("RASA_URL", "http://127.0.0.1:5005") }

target "rasa" {
  rasa {
    url = var.rasa_url
  }
  concurrency = 4
  timeout     = "10s"
}
`,
	"http": `
# Your NLU service, any JSON API: nlutest run {{.Dir}} --target nlu
# The body below is sent for each case; the expectations read the response
# with JSONPath, in the shape schema "rasa" describes (intent.name,
# entities[].entity/value) — change the schema or the paths to your shape.
variable "nlu_url" { default = env("NLU_URL", "http://127.0.0.1:8080") }

target "nlu" {
  http {
    url  = "${var.nlu_url}/parse"
    body = jsonencode({ text = case.text })
  }
  concurrency = 4
  timeout     = "10s"
}
`,
	"openai": `
# An OpenAI-compatible chat API (OpenAI, vLLM, llama.cpp server, Ollama's
# /v1) used as the NLU: nlutest run {{.Dir}} --target openai
# The model is asked for the JSON the expectations read; content = "json"
# decodes the answer's content, so "$.intent.name" reads the model's JSON.
# Set the key with
#   export NLUTEST_VAR_openai_api_key=sk-...
# The run without --target uses the demo NLU, so the suite works offline
# and costs nothing until you switch.
variable "openai_base_url" { default = env("OPENAI_BASE_URL", "https://api.openai.com/v1") }
variable "openai_model" { default = "gpt-4o-mini" }
variable "openai_api_key" {
  default   = env("OPENAI_API_KEY", "")
  sensitive = true
}

target "openai" {
  openai {
    url     = var.openai_base_url
    model   = var.openai_model
    api_key = var.openai_api_key
    system  = "Classify the travel request. Answer with JSON only: {\"intent\": {\"name\": one of greet, book_flight, check_weather, cancel_booking}, \"entities\": [{\"entity\": \"city\" or \"date\", \"value\": the words as written}]}"
    params  = { temperature = 0, response_format = { type = "json_object" } }
    content = "json"          # the content is the JSON the expectations read
    session = { user = true } # the conversation's session id as the request's user
  }
  concurrency = 2
  timeout     = "30s"
  retries     = 2
  retry_on    = ["timeout", "reset", "429", "5xx"]
}
`,
}

// initSuite is the scaffolded suite: the demo target, materials inline and
// from a file, two templates, a conversation, a split and thresholds.
const initSuite = `# {{.Name}}: scaffolded by nlutest init --engine {{.Engine}}.
#
#   nlutest validate {{.Dir}}     check the suite
#   nlutest run {{.Dir}}          run it against the embedded demo NLU
#   nlutest run {{.Dir}} --report-html report.html
#
# Language reference: docs/language.md. Replace the templates and materials
# with your own; keep the thresholds as your release gates.

suite "{{.Name}}" {
  description = "Travel assistant NLU (scaffold)"
  schema      = "rasa"
}

# The demo NLU nlutest embeds, on 127.0.0.1: no service to install.
target "demo" {
  demo {}
  concurrency = 4
}
{{.Target}}
materials "city" {
  tag    = "place"
  level  = "M1"
  source = "materials/cities.txt"
}

materials "day" {
  tag    = "time"
  values = ["明天", "后天", "周五"]
}

template "book-flight" {
  text  = "帮我订{day}去{city}的机票"
  level = "S1"
  core  = true
  scene = ["travel", "flight"]

  # Listing the case's entities on $.entities feeds the entity metrics
  # (metrics.dimension.entity: precision, recall, F1 per type).
  expect = {
    "$.intent.name" = "book_flight"
    "$.entities"    = [{ entity = "date", value = "{day}" }, { entity = "city", value = "{city}" }]
  }
}

template "weather" {
  text  = "{day}{city}天气怎么样"
  level = "S2"
  scene = ["travel", "weather"]

  expect = {
    "$.intent.name" = "check_weather"
  }
}

# A dialogue: its turns run in order in one session, each scored as a
# case; {city} and {day} keep one value through the whole conversation.
# Against a chatbot (rasa { mode = "webhook" }, an openai chat model), a
# turn checks the bot's reply text as well, e.g.
#   reply { contains = ["{city}"] }
# and may open with the bot's welcome: turn { bot_first = true ... }.
conversation "book-then-weather" {
  level = "S2"
  scene = ["travel", "dialogue"]

  turn {
    user   = "帮我订一张{day}去{city}的机票"
    expect = { "$.intent.name" = "book_flight" }
  }
  turn {
    user   = "{day}{city}天气怎么样"
    expect = { "$.intent.name" = "check_weather" }
  }
}

split "smoke" {
  where = case.level == "S1"
}

threshold "smoke" {
  condition = metrics.split.smoke.accuracy >= 0.9
  message   = "core requests must keep working"
}

threshold "overall" {
  condition = metrics.accuracy >= 0.8
  message   = "at least 80% of all cases pass"
}
`

const initCities = "北京\n上海\n广州\n成都\n"

// cmdInit scaffolds a suite in DIR (default: the working directory).
func (a *App) cmdInit(args []string) int {
	fs := newFlagSet(a, "init", "init [--engine rasa|openai|http|demo] [DIR]")
	engine := fs.String("engine", "demo", "the engine to scaffold a target for: rasa, openai, http or demo (every scaffold also runs against the demo)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) > 1 {
		return a.fail(usagef("init takes at most one directory, got %d", len(pos)))
	}
	target, ok := initEngines[*engine]
	if !ok {
		return a.fail(usagef("--engine takes rasa, openai, http or demo, not %q", *engine))
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	abs := dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(a.Getwd, dir)
	}
	if a, err := filepath.Abs(abs); err == nil {
		abs = a // the suite is named after the directory, also for "."
	}
	if existing, _ := filepath.Glob(filepath.Join(abs, "*.nlutest.hcl")); len(existing) > 0 {
		return a.fail(usagef("%s already holds a suite (%s); init writes only into a directory without one", dir, filepath.Base(existing[0])))
	}
	name := pipeline.PathName(filepath.Base(filepath.Clean(abs)))
	files, err := scaffold(dir, name, *engine, target)
	if err != nil {
		return a.fail(err)
	}
	for _, f := range []string{"materials/cities.txt", name + ".nlutest.hcl"} {
		p := filepath.Join(abs, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return a.fail(fmt.Errorf("cannot create %s: %s", filepath.Dir(p), spec.FileError(err)))
		}
		if err := os.WriteFile(p, []byte(files[f]), 0o644); err != nil {
			return a.fail(fmt.Errorf("cannot write %s: %s", p, spec.FileError(err)))
		}
	}
	fmt.Fprintf(a.Stdout, "Wrote %s and %s.\nNext: nlutest run %s\n",
		filepath.Join(dir, name+".nlutest.hcl"), filepath.Join(dir, "materials", "cities.txt"), shellQuote(dir))
	if *engine != "demo" {
		fmt.Fprintf(a.Stdout, "The run uses the demo NLU; against your %s engine: nlutest run %s --target %s\n",
			*engine, shellQuote(dir), map[string]string{"rasa": "rasa", "http": "nlu", "openai": "openai"}[*engine])
	}
	return ExitPass
}

// scaffold renders the files of a new suite.
func scaffold(dir, name, engine, target string) (map[string]string, error) {
	data := struct{ Name, Engine, Dir, Target string }{Name: name, Engine: engine, Dir: shellQuote(dir)}
	var t strings.Builder
	if err := template.Must(template.New("target").Parse(target)).Execute(&t, data); err != nil {
		return nil, err
	}
	data.Target = t.String()
	var s strings.Builder
	if err := template.Must(template.New("suite").Parse(initSuite)).Execute(&s, data); err != nil {
		return nil, err
	}
	return map[string]string{name + ".nlutest.hcl": s.String(), "materials/cities.txt": initCities}, nil
}
