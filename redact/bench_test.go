package redact

// Benchmarks of the redactor on the hot path: every recorded response (JSON)
// and every reply, header value and error message (String) of a suite with
// secrets goes through it once.
//
//	go test -run '^$' -bench . -benchmem -count 5 ./redact

import (
	"strings"
	"testing"
)

var benchSecrets = []string{"sk-proj-Ab3+De/Fg9_Hi-Jk7Lm0Qr", "73914628", "S3cr3t+k/机密=Q7"}

// benchTexts are the inputs a run meets most: a Rasa answer (no escape), a
// chat completion whose reply has \n and \" escapes, a Chinese reply, and a
// 16 KiB text error body with % and \ in it (no secret in any of them).
var benchTexts = map[string]string{
	"rasa-json": `{"text":"订一张去北京的机票","intent":{"name":"订机票","confidence":0.97},"entities":[{"entity":"城市","value":"北京","start":4,"end":6}]}`,
	"chat-json": `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"好的，已为您查询：\n1. 北京 → 上海 \"MU5101\" 08:00\n2. 北京 → 上海 \"CA1501\" 09:00\n请问选哪一班？"},"finish_reason":"stop"}],"usage":{"prompt_tokens":52,"completion_tokens":41,"total_tokens":93}}`,
	"reply":     "好的，已为您查询：北京到上海明天有 12 个航班，最早 07:30 起飞，票价 ¥980 起，折扣 85%。需要我为您预订吗？",
	"text-16k":  strings.Repeat(`at handler (C:\srv\app.js:12) 50% done; path=/v1/x%20y `, 300),
}

func BenchmarkString(b *testing.B) {
	r := New(benchSecrets)
	for _, name := range []string{"rasa-json", "chat-json", "reply", "text-16k"} {
		text := benchTexts[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for range b.N {
				if r.String(text) != text {
					b.Fatal("a text without secrets changed")
				}
			}
		})
	}
}

func BenchmarkJSON(b *testing.B) {
	r := New(benchSecrets)
	for _, name := range []string{"rasa-json", "chat-json"} {
		doc := []byte(benchTexts[name])
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for range b.N {
				if len(r.JSON(doc)) != len(doc) {
					b.Fatal("a document without secrets changed")
				}
			}
		})
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		New(benchSecrets)
	}
}
