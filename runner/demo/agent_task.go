package demo

import (
	"fmt"
	"strings"
)

// This file is the demo agent's understanding of the user (agent.go):
// which task the conversation is about and with what slots, and what it
// does at each step of that task.

// Agent tasks.
const (
	taskNone    = ""
	taskSearch  = "search"
	taskBook    = "book"
	taskWeather = "weather"
	taskStatus  = "status"
	taskCancel  = "cancel"
)

// task is what the user wants, read from the user messages: the task of
// the latest one that names one, and the slots given since (the latest
// city and date, every city of the latest message that gave cities).
type task struct {
	kind     string
	cities   []string
	date     string
	flightNo string
	orderID  string
	zh       bool
}

// say picks the reply's language: Chinese when the user wrote Chinese.
func (t task) say(zh, en string) string {
	if t.zh {
		return zh
	}
	return en
}

// taskOf classifies one user message.
func taskOf(text string) string {
	l := strings.ToLower(text)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(l, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("天气", "weather"):
		return taskWeather
	case has("取消", "退订", "cancel"):
		return taskCancel
	case has("状态", "延误", "到了吗", "起飞了吗", "status") && flightNoOf(text) != "":
		return taskStatus
	case has("订", "book"):
		return taskBook
	case has("查", "搜", "有没有", "search", "find") && has("航班", "机票", "flight"):
		return taskSearch
	}
	return taskNone
}

// readTask reads the task of the user messages in msgs.
func readTask(msgs []agentMessage) task {
	var t task
	from := 0
	for i, m := range msgs {
		if m.Role != "user" {
			continue
		}
		if k := taskOf(m.text); k != taskNone {
			t.kind, from = k, i
		}
	}
	for _, m := range msgs[from:] {
		if m.Role != "user" {
			continue
		}
		t.zh = isChinese(m.text)
		p := Parse(m.text)
		var cities []string
		for _, e := range p.Entities {
			switch e.Entity {
			case EntityCity:
				if e.Role != RoleDeparture {
					cities = append(cities, e.Value)
				}
			case EntityDate:
				t.date = e.Value
			case EntityFlightNo:
				t.flightNo = strings.ToUpper(e.Value)
			}
		}
		if len(cities) > 0 {
			t.cities = cities
		}
		if id := orderIDOf(m.text); id != "" {
			t.orderID = id
		}
	}
	return t
}

// flightNoOf is the flight number in text, "" when none.
func flightNoOf(text string) string {
	for _, e := range Parse(text).Entities {
		if e.Entity == EntityFlightNo {
			return e.Value
		}
	}
	return ""
}

// orderIDOf is an order number in text: a word of letters, digits and
// '-' that starts with a capital letter and holds a digit, and is not a
// flight number ("BK2BE7C4", "B-1024", "B-MU5101" are; "CA1234" is not).
func orderIDOf(text string) string {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) {
		if len(f) >= 4 && (f[0] >= 'A' && f[0] <= 'Z') && strings.ContainsAny(f, "0123456789") && !strings.EqualFold(flightNoOf(f), f) {
			return f
		}
	}
	return ""
}

// city is the task's (first) city.
func (t task) city() string {
	if len(t.cities) == 0 {
		return ""
	}
	return t.cities[0]
}

// tripArgs are the city and date arguments of a flight tool; planted
// defect 2 drops the date for AgentDropsDateFor.
func (t task) tripArgs() map[string]string {
	a := map[string]string{"city": t.city(), "date": t.date}
	if t.city() == AgentDropsDateFor {
		delete(a, "date")
	}
	return a
}

// start is the first step of a task after the user's message: ask for
// what is missing, or call the task's first tool.
func (req *agentRequest) start(t task) agentPlan {
	switch t.kind {
	case taskWeather:
		if len(t.cities) == 0 {
			return agentPlan{text: t.say("请问您想查哪个城市的天气？", "Which city's weather would you like?")}
		}
		if !req.offers(ToolGetWeather) {
			return cannot(t, "查天气")
		}
		var sets []map[string]string
		for _, c := range t.cities {
			a := map[string]string{"city": c}
			if t.date != "" {
				a["date"] = t.date
			}
			sets = append(sets, a)
		}
		return req.calls(ToolGetWeather, sets...)
	case taskStatus:
		// Planted defect 1: a flight-status question searches flights.
		if !req.offers(ToolSearchFlights) {
			return cannot(t, "查询航班")
		}
		return req.calls(ToolSearchFlights, map[string]string{"flight_no": t.flightNo})
	case taskCancel:
		if t.orderID == "" {
			return agentPlan{text: t.say("请问您要取消的订单号是多少？", "What is the order number to cancel?")}
		}
		if !req.offers(ToolCancelBooking) {
			return cannot(t, "取消订单")
		}
		return req.calls(ToolCancelBooking, map[string]string{"order_id": t.orderID})
	case taskBook, taskSearch:
		return req.startTrip(t)
	}
	return agentPlan{text: t.say("您好，我可以帮您查航班、订机票、查天气。", "Hello! I can search flights, book them and check the weather.")}
}

// startTrip asks for the city, then the date, then searches flights (a
// booking searches first, then books the first flight found).
func (req *agentRequest) startTrip(t task) agentPlan {
	switch {
	case t.city() == "":
		return agentPlan{text: t.say("请问您要去哪个城市？", "Which city are you flying to?")}
	case t.date == "":
		return agentPlan{text: t.say("请问您哪天出发？", "What date would you like to fly?")}
	case !req.offers(ToolSearchFlights):
		return cannot(t, "查询航班")
	}
	return req.calls(ToolSearchFlights, t.tripArgs())
}

// afterTools is the step after the tools answered: a booking books the
// first flight its search found; everything else answers from the
// results of the last step.
func (req *agentRequest) afterTools(t task, done []toolExchange) agentPlan {
	lastCall := done[len(done)-1]
	if errText := errorOf(lastCall.result); errText != "" {
		return agentPlan{text: t.say("抱歉，操作没有成功："+errText, "Sorry, that did not work: "+errText)}
	}
	if t.kind == taskBook && lastCall.name == ToolSearchFlights {
		id := firstFlight(lastCall.result)
		switch {
		case id == "":
			return agentPlan{text: t.say("抱歉，没有找到去"+t.city()+"的航班。", "Sorry, I found no flight to "+t.city()+".")}
		case !req.offers(ToolBookFlight):
			return cannot(t, "订机票")
		}
		a := t.tripArgs()
		a["flight_id"] = id
		return req.calls(ToolBookFlight, a)
	}
	var parts []string
	for _, x := range done {
		if x.step == lastCall.step {
			parts = append(parts, describe(t, x))
		}
	}
	return agentPlan{text: strings.Join(parts, t.say("；", "; "))}
}

// errorOf is a tool result's error text, "" when it has none.
func errorOf(res map[string]any) string {
	if e, ok := res["error"]; ok {
		return fmt.Sprint(e)
	}
	return ""
}

// firstFlight is the id of the first flight of a search result.
func firstFlight(res map[string]any) string {
	fl, _ := res["flights"].([]any)
	if len(fl) == 0 {
		return ""
	}
	if f, ok := fl[0].(map[string]any); ok {
		if id, ok := f["id"].(string); ok {
			return id
		}
	}
	return ""
}

// describe puts one tool result in words.
func describe(t task, x toolExchange) string {
	arg := func(k string) string { s, _ := x.args[k].(string); return s }
	res := func(k string) string {
		if v, ok := x.result[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	switch x.name {
	case ToolSearchFlights:
		fl, _ := x.result["flights"].([]any)
		var ids []string
		for _, f := range fl {
			if m, ok := f.(map[string]any); ok {
				ids = append(ids, fmt.Sprint(m["id"]))
			}
		}
		if len(ids) == 0 {
			return t.say("没有找到航班", "no flights found")
		}
		return t.say(fmt.Sprintf("为您找到%d个航班：%s", len(ids), strings.Join(ids, "、")), fmt.Sprintf("%d flights: %s", len(ids), strings.Join(ids, ", ")))
	case ToolBookFlight:
		return t.say("已为您预订"+arg("date")+"去"+arg("city")+"的"+arg("flight_id")+"航班，订单号"+res("order_id"),
			"Booked "+arg("flight_id")+" to "+arg("city")+" "+arg("date")+", order "+res("order_id"))
	case ToolGetWeather:
		return t.say(arg("city")+arg("date")+res("weather")+"，"+res("temperature")+"°C",
			arg("city")+" "+arg("date")+": "+res("weather")+", "+res("temperature")+"°C")
	case ToolFlightStatus:
		return t.say("航班"+arg("flight_no")+res("status"), "flight "+arg("flight_no")+": "+res("status"))
	case ToolCancelBooking:
		return t.say("订单"+arg("order_id")+"已取消", "order "+arg("order_id")+" cancelled")
	}
	return t.say("已完成", "done")
}
