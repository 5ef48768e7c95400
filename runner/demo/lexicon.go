package demo

import "unicode/utf8"

// This file holds the demo NLU's vocabulary: intent features and entity
// gazetteers. Everything is a slice (never a map) so that scores are summed in
// a fixed order and results are byte-identical from run to run.

// Intent names, in tie-break order: when two intents score the same, the one
// listed first wins. nlu_fallback is last so any real evidence beats it.
const (
	IntentGreet           = "greet"
	IntentGoodbye         = "goodbye"
	IntentBookFlight      = "book_flight"
	IntentBookHotel       = "book_hotel"
	IntentBookTrain       = "book_train"
	IntentCancelBooking   = "cancel_booking"
	IntentCheckWeather    = "check_weather"
	IntentAskFlightStatus = "ask_flight_status"
	IntentThankYou        = "thank_you"
	IntentFallback        = "nlu_fallback"
)

// intentOrder is every intent in tie-break order.
var intentOrder = [...]string{
	IntentGreet, IntentGoodbye, IntentBookFlight, IntentBookHotel, IntentBookTrain,
	IntentCancelBooking, IntentCheckWeather, IntentAskFlightStatus, IntentThankYou,
	IntentFallback,
}

// IntentNames returns every intent the demo NLU can return, in tie-break
// order (a fresh slice on each call).
func IntentNames() []string {
	out := make([]string, len(intentOrder))
	copy(out, intentOrder[:])
	return out
}

// Entity types produced by Parse.
const (
	EntityCity      = "city"
	EntityDate      = "date"
	EntityNumber    = "number"
	EntitySeatClass = "seat_class"
	EntityHotelStar = "hotel_star"
	EntityFlightNo  = "flight_no"
)

// Extractor names reported in the entities' "extractor" field.
const (
	ExtractorGazetteer = "DemoGazetteer"
	ExtractorPattern   = "DemoPattern"
)

// Roles of city and number entities.
const (
	RoleDeparture   = "departure"
	RoleDestination = "destination"
	RoleTickets     = "tickets"
	RolePeople      = "people"
	RoleRooms       = "rooms"
	RoleNights      = "nights"
)

type weight struct {
	intent string
	w      float64
}

// feature is one piece of evidence: it fires once when any of its surfaces
// occurs in the text (English surfaces only on word boundaries) and then adds
// its weights.
type feature struct {
	surfaces []string
	weights  []weight
}

var booking3 = func(w float64) []weight {
	return []weight{{IntentBookFlight, w}, {IntentBookHotel, w}, {IntentBookTrain, w}}
}

// features are the keyword evidence for intents, with lower-case surfaces.
// Negation is deliberately not modelled (a documented weakness).
var features = lowerFeatures([]feature{
	// Generic booking verbs: evidence for all three booking intents. "订" is
	// also inside "退订", which is why "退订机票" scores as book_flight.
	{[]string{"订", "预订", "预定", "买", "购买", "book", "booking", "reserve", "reservation", "buy"}, booking3(1.0)},
	{[]string{"机票", "飞机票", "airfare", "air ticket", "plane ticket", "plane tickets"}, []weight{{IntentBookFlight, 2.0}}},
	{[]string{"飞机", "plane", "airplane", "flight", "flights", "fly", "flying"}, []weight{{IntentBookFlight, 1.5}, {IntentAskFlightStatus, 0.5}}},
	{[]string{"舱", "舱位", "cabin"}, []weight{{IntentBookFlight, 0.8}}},
	{[]string{"航班"}, []weight{{IntentBookFlight, 1.0}, {IntentAskFlightStatus, 0.8}}},
	{[]string{"飞", "飞往"}, []weight{{IntentBookFlight, 0.8}}},
	{[]string{"票", "ticket", "tickets"}, []weight{{IntentBookFlight, 0.3}, {IntentBookTrain, 0.3}}},
	{[]string{"酒店", "宾馆", "旅馆", "民宿", "hotel", "hotels", "hostel", "inn"}, []weight{{IntentBookHotel, 2.0}}},
	{[]string{"住宿", "入住", "accommodation", "lodging"}, []weight{{IntentBookHotel, 1.5}}},
	{[]string{"房间", "订房", "标间", "大床房", "room", "rooms", "suite"}, []weight{{IntentBookHotel, 1.2}}},
	{[]string{"住", "stay", "staying"}, []weight{{IntentBookHotel, 0.6}}},
	{[]string{"火车", "高铁", "动车", "列车", "train", "trains", "railway", "rail"}, []weight{{IntentBookTrain, 2.0}}},
	{[]string{"车票", "火车票", "高铁票", "train ticket", "train tickets"}, []weight{{IntentBookTrain, 1.0}}},
	{[]string{"取消", "退票", "cancel", "cancellation", "call off"}, []weight{{IntentCancelBooking, 5.0}}},
	{[]string{"退订", "退掉", "refund"}, []weight{{IntentCancelBooking, 2.0}}},
	{[]string{"天气", "天气预报", "weather", "forecast"}, []weight{{IntentCheckWeather, 3.0}}},
	{[]string{"下雨", "下雪", "雨", "rain", "raining", "rainy", "snow", "snowing"}, []weight{{IntentCheckWeather, 2.0}}},
	{[]string{"气温", "温度", "多少度", "冷不冷", "热不热", "temperature", "hot", "cold"}, []weight{{IntentCheckWeather, 2.0}}},
	{[]string{"带伞", "晴", "umbrella", "sunny"}, []weight{{IntentCheckWeather, 1.5}}},
	{[]string{"状态", "动态", "status"}, []weight{{IntentAskFlightStatus, 2.5}}},
	{[]string{"延误", "晚点", "delayed", "delay", "late"}, []weight{{IntentAskFlightStatus, 2.5}}},
	{[]string{"准点", "准时", "on time"}, []weight{{IntentAskFlightStatus, 2.0}}},
	{[]string{"起飞", "降落", "落地", "到达", "登机口", "depart", "departed", "land", "landed", "arrive", "arrived", "gate", "take off"}, []weight{{IntentAskFlightStatus, 1.5}}},
	{[]string{"查", "check"}, []weight{{IntentAskFlightStatus, 0.4}, {IntentCheckWeather, 0.4}}},
	{[]string{"你好", "您好", "嗨", "哈喽", "早上好", "下午好", "晚上好", "hello", "hi", "hey", "good morning", "good afternoon", "good evening"}, []weight{{IntentGreet, 2.5}}},
	{[]string{"再见", "拜拜", "回头见", "下次见", "bye", "goodbye", "see you", "see ya"}, []weight{{IntentGoodbye, 3.0}}},
	{[]string{"谢谢", "多谢", "感谢", "谢了", "thanks", "thank you", "thx", "appreciate"}, []weight{{IntentThankYou, 3.0}}},
})

func lowerFeatures(fs []feature) []feature {
	for _, f := range fs {
		for i, s := range f.surfaces {
			f.surfaces[i] = lower(s)
		}
	}
	return fs
}

// entityEvidence is what an extracted entity adds to the intent scores, keyed
// by entity type and (for numbers) role.
type entityEvidence struct {
	entity  string
	role    string // "" matches any role
	weights []weight
}

var entityWeights = []entityEvidence{
	{EntityCity, "", []weight{{IntentBookFlight, 0.3}, {IntentBookHotel, 0.3}, {IntentBookTrain, 0.3}, {IntentCheckWeather, 0.3}}},
	{EntityDate, "", []weight{{IntentBookFlight, 0.2}, {IntentBookHotel, 0.2}, {IntentBookTrain, 0.2}, {IntentCheckWeather, 0.2}}},
	{EntitySeatClass, "", []weight{{IntentBookFlight, 1.2}}},
	{EntityHotelStar, "", []weight{{IntentBookHotel, 1.2}}},
	{EntityFlightNo, "", []weight{{IntentAskFlightStatus, 1.5}}},
	{EntityNumber, RoleTickets, []weight{{IntentBookFlight, 0.3}, {IntentBookTrain, 0.3}}},
	{EntityNumber, RoleRooms, []weight{{IntentBookHotel, 1.0}}},
	{EntityNumber, RoleNights, []weight{{IntentBookHotel, 1.0}}},
	{EntityNumber, RolePeople, []weight{{IntentBookFlight, 0.2}, {IntentBookHotel, 0.2}, {IntentBookTrain, 0.2}}},
}

// gazEntry is one surface form of a gazetteer entity.
type gazEntry struct {
	surface    string
	normalized any
	conf       float64
	low        string // surface lower-cased rune by rune
	runes      int    // rune count of surface
}

type gazetteer struct {
	entity  string
	entries []gazEntry
}

// cityPairs are the 40 known cities: Chinese name, English name(s). The
// normalised value of a city is its English name.
var cityPairs = [][]string{
	{"北京", "Beijing", "Peking"},
	{"上海", "Shanghai"},
	{"广州", "Guangzhou", "Canton"},
	{"深圳", "Shenzhen"},
	{"成都", "Chengdu"},
	{"杭州", "Hangzhou"},
	{"武汉", "Wuhan"},
	{"西安", "Xi'an", "Xian"},
	{"重庆", "Chongqing"},
	{"南京", "Nanjing"},
	{"天津", "Tianjin"},
	{"苏州", "Suzhou"},
	{"长沙", "Changsha"},
	{"郑州", "Zhengzhou"},
	{"青岛", "Qingdao"},
	{"厦门", "Xiamen"},
	{"昆明", "Kunming"},
	{"大连", "Dalian"},
	{"沈阳", "Shenyang"},
	{"哈尔滨", "Harbin"},
	{"三亚", "Sanya"},
	{"拉萨", "Lhasa"},
	{"乌鲁木齐", "Urumqi"},
	{"香港", "Hong Kong"},
	{"澳门", "Macau", "Macao"},
	{"台北", "Taipei"},
	{"东京", "Tokyo"},
	{"大阪", "Osaka"},
	{"首尔", "Seoul"},
	{"新加坡", "Singapore"},
	{"曼谷", "Bangkok"},
	{"伦敦", "London"},
	{"巴黎", "Paris"},
	{"纽约", "New York"},
	{"洛杉矶", "Los Angeles"},
	{"旧金山", "San Francisco"},
	{"悉尼", "Sydney"},
	{"柏林", "Berlin"},
	{"莫斯科", "Moscow"},
	{"迪拜", "Dubai"},
}

func buildGazetteers() []gazetteer {
	var cities []gazEntry
	for _, p := range cityPairs {
		cities = append(cities, gazEntry{surface: p[0], normalized: p[1], conf: 0.98})
		for _, en := range p[1:] {
			cities = append(cities, gazEntry{surface: en, normalized: p[1], conf: 0.96})
		}
	}
	seats := []gazEntry{
		{surface: "经济舱", normalized: "economy", conf: 0.95},
		{surface: "商务舱", normalized: "business", conf: 0.95},
		{surface: "公务舱", normalized: "business", conf: 0.95},
		{surface: "头等舱", normalized: "first", conf: 0.95},
		{surface: "economy class", normalized: "economy", conf: 0.95},
		{surface: "economy", normalized: "economy", conf: 0.9},
		{surface: "business class", normalized: "business", conf: 0.95},
		{surface: "business", normalized: "business", conf: 0.85}, // also "business trip": a documented weakness
		{surface: "first class", normalized: "first", conf: 0.95},
	}
	stars := []gazEntry{}
	cn := []string{"二", "三", "四", "五"}
	en := []string{"two", "three", "four", "five"}
	for i := range cn {
		n := i + 2
		d := string(rune('0' + n))
		for _, s := range []string{cn[i] + "星级", cn[i] + "星", d + "星级", d + "星", en[i] + "-star", en[i] + " star", d + "-star", d + " star"} {
			stars = append(stars, gazEntry{surface: s, normalized: n, conf: 0.93})
		}
	}
	gs := []gazetteer{{EntityCity, cities}, {EntitySeatClass, seats}, {EntityHotelStar, stars}}
	for _, g := range gs {
		for i := range g.entries {
			g.entries[i].low = lower(g.entries[i].surface)
			g.entries[i].runes = utf8.RuneCountInString(g.entries[i].surface)
		}
	}
	return gs
}

// gazetteers is built once at package initialisation and only read afterwards.
var gazetteers = buildGazetteers()
