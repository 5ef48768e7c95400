// Package demo owns nlutest's embedded reference NLU service: a small,
// deterministic, rule-based NLU for a bilingual (Chinese and English) travel
// assistant, plus the relation-query family of the IAO corpus-factory write-up's IAO NLU. Suites run
// against it out of the box (`nlutest serve demo`, and the `demo` target,
// which starts it on 127.0.0.1 inside the process).
//
// It is deliberately good but not perfect, so reports show real,
// natural-looking failures. Every weakness listed below is pinned by a test
// (weaknesses_test.go), so suite writers can rely on it.
//
// # README section
//
// The demo NLU serves these endpoints. Requests and responses are JSON
// (Content-Type application/json); keys of response objects are sorted, and
// the same input always gives byte-identical output. A body that is not a JSON
// object, a missing field or a field that is not a string gives 400 with
// {"error": "..."}; a wrong method gives 405 (with an Allow header); a body
// over 1 MiB gives 413; an unknown path gives 404.
//
// POST /model/parse — Rasa NLU style. Request {"text": "帮我订一张明天去北京的机票"}.
// Response:
//
//	{
//	  "text": "帮我订一张明天去北京的机票",
//	  "intent": {"name": "book_flight", "confidence": 0.9412},
//	  "intent_ranking": [{"name": "book_flight", "confidence": 0.9412}, … up to 5, highest first],
//	  "entities": [
//	    {"entity": "number", "value": "一", "start": 3, "end": 4, "role": "tickets", "normalized": 1, …},
//	    {"entity": "date", "value": "明天", "start": 5, "end": 7, "normalized": "tomorrow", …},
//	    {"entity": "city", "value": "北京", "start": 8, "end": 10, "role": "destination",
//	     "normalized": "Beijing", "confidence_entity": 0.98, "extractor": "DemoGazetteer"}
//	  ]
//	}
//
// Intents: greet, goodbye, book_flight, book_hotel, book_train,
// cancel_booking, check_weather, ask_flight_status, thank_you, and
// nlu_fallback when nothing matches (with a low confidence, about 0.2–0.4).
// Confidences are softmax probabilities over all ten intents, rounded down to
// 4 decimals, so the ranking's confidences sum to at most 1.
//
// Entities (start/end are code-point offsets, end exclusive, as in Rasa;
// "value" is the text as written, "normalized" the canonical value):
//
//	city        40 cities, Chinese or English (北京/Beijing … 迪拜/Dubai); normalized: English name;
//	            role "departure" after 从/from (or before 到/飞/至/to + another city),
//	            "destination" after 到/去/飞/往/至/to
//	date        今天 今晚 明天 明早 明晚 后天 大后天 周X 星期X 下周X 下星期X 这周X 本周X,
//	            today tonight tomorrow (the) day after tomorrow [next|this] monday…sunday;
//	            normalized: today, tomorrow, day_after_tomorrow, in_3_days, monday,
//	            next_monday, this_monday, …
//	number      a numeral (digits, 一…十, 两, 俩, one…ten) before a unit: 张/ticket(s) →
//	            role "tickets", 位/名/人/个人/people/adults/passengers/guests → "people",
//	            间/个房间/room(s) → "rooms", 晚/夜/night(s) → "nights"; normalized: integer;
//	            the span covers the numeral only
//	seat_class  经济舱 商务舱 公务舱 头等舱 economy (class) business (class) first class;
//	            normalized: economy, business, first
//	hotel_star  二星…五星, 三星级, 5星, five-star, 5 star …; normalized: integer
//	flight_no   CA1234, MU5101, 3U8888 (two letters/digits + 3–4 digits); normalized: upper case
//
// Quality knobs (variant.go, docs/demo.md): /model/parse?degrade=0.1&seed=v2&flaky=true
// answers a share of the inputs nlu_fallback (chosen by a seeded hash of
// the text) and, with flaky, a close call's runner-up on even repetitions
// (the request's optional "repeat", a whole number from 0).
//
// POST /iao — the IAO corpus-factory write-up's IAO NLU style, for queries of the form
// "{查询操作}{手机号}的{伴随关系}人员" (查询操作: 查询, 查一下, 帮我查, 搜索, …;
// 手机号: 11 digits, 1[3-9]…). Request {"query": "查询13301791708的酒店同房间人员"}.
// Response (exactly the IAO corpus-factory write-up's example):
//
//	{"code": 200,
//	 "data": [{"apps": {"app_op_seq": []},
//	           "content": {"des": {"phone_number": "13301791708"}, "ont": "SIM_Card",
//	                       "rel": [{"des": {}, "ont": ["SIM_Card", "Person"],
//	                                "rel": [{"behavior": [{"category": "伴随分析", "location": [], "modifiers": [],
//	                                                       "number": [], "target": null, "time": [], "traffic": []}],
//	                                         "des": {"intent": ["full"]}, "intentPro": ["entity"],
//	                                         "ont": ["Person", "Person"], "relIdx": [0, "14-19"],
//	                                         "relName": "酒店同房间同宿", "segs": ["查询13301791708的酒店同房间人员"]}],
//	                                "relIdx": [0, "13-19"], "relName": "使用人", "segs": ["…"]}],
//	                       "segs": ["查询13301791708的酒店同房间人员"]},
//	           "content_op": "查询"}],
//	 "data_op": {"data_rel": [""], "data_rel_property": []},
//	 "msg": "",
//	 "unknown": [{"keyword": "酒店", "ont": "unknown"}]}
//
// Relations (伴随关系 → relName): 酒店同房间/同房间/酒店同宿 → 酒店同房间同宿;
// 同住酒店/酒店同住 → 酒店同住; 同行 → 同行; 同乘航班/同航班 → 同航班;
// 同车/同乘火车/同车次 → 同车次; 网吧同上网/同网吧上网 → 网吧同上网;
// 同出入境 → 同出入境. relIdx is [segment index, "start-end"] in code points,
// end exclusive: the relation spans its phrase (酒店同房间 = 14–19), 使用人
// spans from the end of the phone number (the 的) to the end of the phrase
// (13–19). "unknown" lists the place words 酒店, 宾馆, 网吧, 航班, 火车 found in
// the query, in order of appearance. An identity-card query
// ("查询身份证号11010119900307851X的同行人员") gives content.des.id_number,
// content.ont "Person" and the relation directly in content.rel (no 使用人
// hop). A query with no number of 7 or more digits gives
// {"code": 200, "data": [], "msg": "无法理解", …}.
//
// POST /booking — a stateful bilingual flight-booking bot (booking.go):
// {"session": "ID", "text": "…"} → {"session", "intent", "slots", "normalized",
// "state", "order_id", "reply"}. It asks for the missing city and date,
// asks to confirm, and books with an order number; docs/demo.md describes it.
//
// POST /memory — a chat bot with a bounded memory (memory.go): {"session",
// "text"} → {"session", "turn", "reply"}. It recalls a name or city it was
// told for MemoryTurns turns, then names a wrong value, then forgets.
//
// POST /nli — a toy judge of memory answers (nli.go): {"premise", "hypothesis",
// "expect"} → {"label": "entailment" | "neutral" | "contradiction"}, by
// containment of the expected value and the fact's frame restated.
//
// POST /v1/chat/completions — an OpenAI-compatible tool-using agent
// (agent.go): it reads the conversation it is sent, calls search_flights,
// book_flight, get_weather or cancel_booking with arguments taken from the
// user's words, and answers from the tool results; docs/demo.md describes
// its rules and its two planted defects (a flight-status question calls
// search_flights; 广州 loses its date argument).
//
// GET /health — {"status": "ok"}.
//
// # Known weaknesses
//
// Parse (/model/parse):
//
//  1. Negation is ignored: "不要订机票" and "don't book a flight to Paris" are
//     book_flight with high confidence.
//  2. A booking keyword inside a cancel word wins: "我要退订机票" is book_flight
//     (the IAO corpus-factory write-up's own example of keyword matching), because 订 and 机票 outweigh
//     退订. 取消/cancel/退票 are strong enough to win.
//  3. Unknown cities are missed: only the 40 gazetteer cities are entities,
//     so "去桂林的机票" and "fly to Lisbon" have no city.
//  4. Only relative dates are known. Absolute dates (5月1日, May 1st), 周末,
//     weekend, 礼拜X and "in two days" give no date entity; "下下周一" gives
//     the date "下周一" (start 1, normalized next_monday) — one week early.
//  5. Chinese numerals are single characters: "订十二张火车票" gives the number
//     "二" (2) instead of 12.
//  6. "business" alone is a seat class, so "I'm going on a business trip to
//     Shanghai" has a seat_class entity and is classified book_flight.
//  7. Short inputs get low confidence: inputs under 5 units (a Chinese
//     character counts 1, an English word 2) are scored at a higher softmax
//     temperature, so "你好"/"hi" are greet at about 0.53, "谢谢" thank_you at
//     about 0.65 and "机票" book_flight below 0.5. A bare entity ("北京",
//     "明天") is nlu_fallback.
//  8. Confusable intents: "订票" scores book_flight and book_train equally
//     (book_flight wins the tie, confidence under 0.2); 航班 alone is weak
//     evidence, so "有去北京的航班吗？" is book_flight below 0.5.
//  9. Traditional Chinese is not supported: "訂機票" is nlu_fallback.
//  10. No spelling tolerance: "what's the wether in Paris" is not check_weather.
//
// Booking bot (/booking):
//
//  1. A corrected destination drops the date ("改成深圳" after a full
//     request: the date is asked for again).
//  2. 大后天 is read as 后天, and "next friday" as "friday".
//
// IAO (/iao):
//
//  1. Only 11-digit numbers 1[3-9]… are phone numbers: "+8613301791708" and
//     "8613301791708" give content.des {} and msg "未识别到手机号" (the relation
//     is still parsed). A labelled identity number that is not 18 characters
//     gives msg "未识别到身份证号".
//  2. A relation phrase not in the table gives relName "" (e.g. 同乘大巴,
//     同乘飞机), with msg still "".
//  3. 检索 is not normalised: content_op is "检索"; any operation outside the
//     table is passed through as written, and a query without one has
//     content_op "".
//  4. A query without a number of 7 or more digits is not understood, even
//     when it names a relation ("查询张三的同行人员" → data [], msg "无法理解").
package demo
