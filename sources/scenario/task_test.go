package scenario

import (
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/spec"
)

// taskScenario is a scenario around a task block (TASK), with a
// final_state block when FINAL is replaced by one.
const taskScenario = `
materials "城市" { values = ["北京", "上海"] }
tool "book_flight" {}
scenario "订机票" {
  goal {
    inform  = { city = "{城市}", date = "明天" }
    request = ["订单号"]
  }
  opening = ["我想订机票"]
  success { condition = strcontains(reply, "订单号") }
  FINAL
  TASK
}
`

func loadTask(t *testing.T, task, final string) (*spec.Suite, error) {
	t.Helper()
	src := strings.Replace(strings.Replace(taskScenario, "TASK", task, 1), "FINAL", final, 1)
	dir := kindtest.WriteSuite(t, src)
	s, diags := load(dir)
	if diags.HasErrors() {
		return s, diags
	}
	return s, nil
}

// A task block's entries take their roles from the goal: inform slots are
// the offered entity's attributes, request items the answers, any other
// name a value nobody asked for; every kind of value source compiles.
func TestTaskBlock(t *testing.T) {
	s, err := loadTask(t, `task {
    domain    = "机票"
    offers    = { city = "$.slots.city", date = "state:$.slots.date", "订单号" = "reply:订单号\\s*(\\w+)", "航班号" = "tool:book_flight:$.flight_id" }
    reference = "final:$.bookings[-1]"
    booked    = { city = "final:$.bookings[-1].city" }
  }`, `final_state {
    from   = "mocks"
    expect = { "$.bookings[0].city" = "{城市}" }
  }`)
	if err != nil {
		t.Fatal(err)
	}
	task := s.SourceByKind(spec.KindScenario, "订机票").Info().Task
	if task == nil {
		t.Fatal("no task")
	}
	var got []string
	for _, v := range task.Offers {
		got = append(got, v.Name+":"+string(rune('0'+v.Role))+":"+string(rune('0'+v.From.Kind)))
	}
	if strings.Join(got, " ") != "city:0:0 date:0:1 订单号:1:4 航班号:2:2" {
		t.Errorf("offers %v", got)
	}
	if task.Domain != "机票" || task.InformSlots != 2 || task.Requests != 1 || task.Reference == nil || task.Reference.Kind != spec.FromFinal ||
		len(task.Booked) != 1 || task.Booked[0].From.Kind != spec.FromFinal || task.Offers[3].From.Tool != "book_flight" {
		t.Errorf("task %+v", task)
	}
	if task.Mask(spec.TaskInform) != 0b11 || task.Mask(spec.TaskRequest) != 0b100 || task.Mask(spec.TaskOther) != 0b1000 {
		t.Errorf("masks %b %b %b", task.Mask(spec.TaskInform), task.Mask(spec.TaskRequest), task.Mask(spec.TaskOther))
	}
}

// Every mistake in a task block is one located diagnostic saying what to
// do (a bad offers entry does not also report the request it would have
// read as not offered).
func TestTaskBlockErrors(t *testing.T) {
	const final = `final_state {
    from   = "mocks"
    expect = { "$.bookings[0].city" = "{城市}" }
  }`
	for _, tc := range []struct {
		task, final, summary, detail, at string
	}{
		{`task { offers = { city = "$.slots.city", "订单好" = "$.order_id" } }`, "", "Request not offered",
			`The goal requests "订单号", and the task's offers do not say where the bot gives it, so it could never count as provided. offers has "订单好": if that is it, name it "订单号". Add "订单号" = "$.path" to offers.`, "s.nlutest.hcl:12,19"},
		{`task {
    offers = { "订单号" = "$.order_id" }
    booked = { cty = "$.slots.city" }
  }`, "", "Unknown slot", `the goal informs no "cty". Did you mean "city"? Inform slots: "city", "date".`, "s.nlutest.hcl:14,16"},
		{`task { offers = { "订单号" = "final:$.order_id" } }`, "", "Final state not read", "final_state { from = \"mocks\"", "s.nlutest.hcl:12,29"},
		{`task { offers = { "订单号" = "$.order[0" } }`, "", "Invalid JSONPath", `"$.order[0" is not a JSONPath`, "s.nlutest.hcl:12,"},
		{`task { offers = { "订单号" = "reply:订单号(" } }`, "", "Invalid value source", "the expression after reply: does not compile", "s.nlutest.hcl:12,29"},
		{`task { offers = { "订单号" = "tool:book_flight" } }`, "", "Invalid JSONPath", "a tool: source is tool:NAME:$.path", "s.nlutest.hcl:12,"},
		{`task { offers = { "订单号" = "$.order_id" } }
  task { domain = "机票" }`, "", "Duplicate task block", "A scenario has one task block", "s.nlutest.hcl:13,3"},
		{`task { domain = "机票" }`, "", "Empty task", "offers = {", "s.nlutest.hcl:12,3"},
		{`task {
    offers    = { "订单号" = "$.order_id" }
    reference = "$.order_id"
  }`, "", "Reference without booked", "Add booked = {", "s.nlutest.hcl:14,17"},
		{`task { offers = ["$.order_id"] }`, "", "Invalid offers", "offers is a map from a name to where its value is read", "s.nlutest.hcl:12,19"},
		{`task { offers = { "订单号" = "$.order_id", "订单号" = "$.id" } }`, "", "Duplicate offers entry", `offers names "订单号" twice`, "s.nlutest.hcl:12,"},
		{`task { offers = { "订单号" = "final:$.bookings" } }`, final, "", "", ""},
	} {
		_, err := loadTask(t, tc.task, tc.final)
		if tc.summary == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.task, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: loaded without errors", tc.task)
			continue
		}
		diags := err.(interface{ Error() string })
		if msg := diags.Error(); !strings.Contains(msg, tc.summary) || !strings.Contains(msg, tc.detail) || !strings.Contains(msg, tc.at) {
			t.Errorf("%s:\n%s\nwant %q (%q) at %s", tc.task, msg, tc.summary, tc.detail, tc.at)
		}
		if msg := diags.Error(); strings.Contains(msg, "other diagnostic") {
			t.Errorf("%s: one mistake, several diagnostics:\n%s", tc.task, msg)
		}
	}
}
