package qmm_test

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/questbot/questbot/qmm"
)

// The assertions of the reference's reader suite (src/test/05-qmreader.ts), for qmreader-1.qm
// and qmreader-1.qmm: the same quest saved in both formats.

// fieldCheck is one assertion: got must equal want.
type fieldCheck struct {
	name      string
	got, want any
}

func locationByID(t *testing.T, q *qmm.Quest, id int32) *qmm.Location {
	t.Helper()
	for i := range q.Locations {
		if q.Locations[i].ID == id {
			return &q.Locations[i]
		}
	}
	t.Fatalf("location id=%d not found", id)
	return nil
}

func jumpByID(t *testing.T, q *qmm.Quest, id int32) *qmm.Jump {
	t.Helper()
	for i := range q.Jumps {
		if q.Jumps[i].ID == id {
			return &q.Jumps[i]
		}
	}
	t.Fatalf("jump id=%d not found", id)
	return nil
}

// media returns the media expected for the .qmm file (all three names from prefix) or for the
// .qm file (all absent).
func media(qmmFile bool, img, sound, track string) qmm.Media {
	if !qmmFile {
		return qmm.Media{}
	}
	return qmm.Media{Image: qmm.Some(img), Sound: qmm.Some(sound), Track: qmm.Some(track)}
}

func pick[T any](qmmFile bool, forQMM, forQM T) T {
	if qmmFile {
		return forQMM
	}
	return forQM
}

func nearly(a, b float64) bool { return math.Abs(a-b) < 0.000001 }

func qmreaderChecks(t *testing.T, q *qmm.Quest, isQMM bool) []fieldCheck {
	p := q.Params
	checks := []fieldCheck{
		// Basic values
		{"hardness", q.Hardness, int32(68)},
		{"taskText", q.TaskText, "TaskText"},
		{"successText", q.SuccessText, "SuccessText"},
		{"strings.Ranger", q.Strings.Ranger, "R"},
		{"strings.ToPlanet", q.Strings.ToPlanet, "TP"},
		{"strings.ToStar", q.Strings.ToStar, "TS"},
		{"strings.FromPlanet", q.Strings.FromPlanet, "FP"},
		{"strings.FromStar", q.Strings.FromStar, "FS"},
		{"defaultJumpCountLimit", q.DefaultJumpCountLimit, int32(34)},

		// Param definitions
		{"param1 active", p[0].Active, true},
		{"param1 name", p[0].Name, "param1"},
		{"param1 type", p[0].Type, qmm.ParamOrdinary},
		{"param1 showWhenZero", p[0].ShowWhenZero, true},
		{"param1 min", p[0].Min, int32(0)},
		{"param1 max", p[0].Max, int32(1)},
		{"param1 isMoney", p[0].IsMoney, false},

		{"param2 active", p[1].Active, true},
		{"param2 name", p[1].Name, "param2success"},
		{"param2 type", p[1].Type, qmm.ParamWin},
		{"param2 critType", p[1].CritType, qmm.CritMin},
		{"param2 critValueString", p[1].CritText, "def_param2_msg"},
		{"param2 media", p[1].Media, media(isQMM, "p2img", "p2sound", "p2track")},

		{"param3 active", p[2].Active, true},
		{"param3 name", p[2].Name, "param3fail"},
		{"param3 type", p[2].Type, qmm.ParamFail},
		{"param3 critType", p[2].CritType, qmm.CritMax},
		{"param3 critValueString", p[2].CritText, "p3_def_msg"},
		{"param3 media", p[2].Media, media(isQMM, "p3img", "p3sound", "p3track")},

		{"param4 active", p[3].Active, true},
		{"param4 name", p[3].Name, "param4dead"},
		{"param4 type", p[3].Type, qmm.ParamDeath},

		{"param5 active", p[4].Active, true},
		{"param5 name", p[4].Name, "param5hidezero"},
		{"param5 showWhenZero", p[4].ShowWhenZero, false},

		{"param6 active", p[5].Active, true},
		{"param6 name", p[5].Name, "param6startingval"},
		{"param6 min", p[5].Min, int32(40)},
		{"param6 max", p[5].Max, int32(60)},
		{"param6 starting", p[5].Starting, "[41]"},

		{"param7 active", p[6].Active, true},
		{"param7 name", p[6].Name, "param7showingranges"},
		{"param7 showingInfo", p[6].Ranges, []qmm.ParamRange{
			{From: 0, To: 2, Text: "range1 <>"},
			{From: 3, To: 5, Text: "range2 <>"},
			{From: 6, To: 10, Text: "range3 <>"},
		}},

		{"param8 active", p[7].Active, true},
		{"param8 name", p[7].Name, "param8money"},
		{"param8 isMoney", p[7].IsMoney, true},
	}

	// Locations
	loc2 := locationByID(t, q, 2)
	checks = append(checks,
		fieldCheck{"loc2 text", loc2.Texts[0].Text, "loc2start"},
		fieldCheck{"loc2 isStarting", loc2.IsStarting, true},
		fieldCheck{"loc2 maxVisits", loc2.MaxVisits, int32(0)},
		fieldCheck{"start location", q.Locations[q.StartLocation()].ID, int32(2)},
	)
	loc1 := locationByID(t, q, 1)
	checks = append(checks,
		fieldCheck{"loc1 isStarting", loc1.IsStarting, false},
		fieldCheck{"loc1 texts", len(loc1.Texts), pick(isQMM, 3, 10)},
		fieldCheck{"loc1 isTextByFormula", loc1.TextByFormula, false},
	)
	for i := range 3 {
		prefix := fmt.Sprintf("loc1text%d", i+1)
		checks = append(checks,
			fieldCheck{prefix, loc1.Texts[i].Text, prefix},
			fieldCheck{prefix + " media", loc1.Texts[i].Media,
				media(isQMM, prefix+"img", prefix+"sound", prefix+"track")},
		)
	}
	loc3 := locationByID(t, q, 3)
	checks = append(checks,
		fieldCheck{"loc3 isTextByFormula", loc3.TextByFormula, true},
		fieldCheck{"loc3 textSelectFormula", loc3.TextSelectFormula, "[p1]+1"},
		fieldCheck{"loc5 isEmpty", locationByID(t, q, 5).IsEmpty, true},
		fieldCheck{"loc6 isSuccess", locationByID(t, q, 6).IsSuccess, true},
		fieldCheck{"loc7 isFaily", locationByID(t, q, 7).IsFail, true},
		fieldCheck{"loc8 isFailyDeadly", locationByID(t, q, 8).IsDeadly, true},
		fieldCheck{"loc9 dayPassed", locationByID(t, q, 9).DayPassed, true},
		fieldCheck{"loc10 maxVisits", locationByID(t, q, 10).MaxVisits, pick(isQMM, int32(78), 0)},
		fieldCheck{"loc5 maxVisits", locationByID(t, q, 5).MaxVisits, pick(isQMM, int32(312), 0)},
	)

	// Location param change
	loc4 := locationByID(t, q, 4)
	c := loc4.Change(0)
	checks = append(checks,
		fieldCheck{"loc4 p1 change", c.Change, int32(0)},
		fieldCheck{"loc4 p1 isChangeFormula", c.IsFormula, false},
		fieldCheck{"loc4 p1 isChangePercentage", c.IsPercentage, false},
		fieldCheck{"loc4 p1 isChangeValue", c.IsValue, false},
		fieldCheck{"loc4 p1 showingType", c.Showing, qmm.ShowingUnchanged},
	)
	c = loc4.Change(1)
	checks = append(checks,
		fieldCheck{"loc4 p2 change", c.Change, int32(-1)},
		fieldCheck{"loc4 p2 isChangeFormula", c.IsFormula, false},
		fieldCheck{"loc4 p2 isChangePercentage", c.IsPercentage, false},
		fieldCheck{"loc4 p2 isChangeValue", c.IsValue, false},
		fieldCheck{"loc4 p2 kind", c.Kind(), qmm.ChangeAdd},
		fieldCheck{"loc4 p2 showingType", c.Showing, qmm.ShowingHide},
		fieldCheck{"loc4 p2 critText", c.CritText, "l4_param2_msg"},
		fieldCheck{"loc4 p2 media", c.Media, media(isQMM, "l4p2img", "l4p2sound", "l4p2track")},
	)
	c = loc4.Change(2)
	checks = append(checks,
		fieldCheck{"loc4 p3 change", c.Change, int32(44)},
		fieldCheck{"loc4 p3 isChangeFormula", c.IsFormula, false},
		fieldCheck{"loc4 p3 isChangePercentage", c.IsPercentage, true},
		fieldCheck{"loc4 p3 isChangeValue", c.IsValue, false},
		fieldCheck{"loc4 p3 showingType", c.Showing, qmm.ShowingShow},
		fieldCheck{"loc4 p3 critText", c.CritText, "l4_p3_msg"},
	)
	c = loc4.Change(5)
	checks = append(checks,
		fieldCheck{"loc4 p6 change", c.Change, int32(53)},
		fieldCheck{"loc4 p6 isChangeFormula", c.IsFormula, false},
		fieldCheck{"loc4 p6 isChangePercentage", c.IsPercentage, false},
		fieldCheck{"loc4 p6 isChangeValue", c.IsValue, true},
	)
	c = loc4.Change(6)
	checks = append(checks,
		fieldCheck{"loc4 p7 changingFormula", c.Formula, "[p3]-[p1]"},
		fieldCheck{"loc4 p7 isChangeFormula", c.IsFormula, true},
		fieldCheck{"loc4 p7 isChangePercentage", c.IsPercentage, false},
		fieldCheck{"loc4 p7 isChangeValue", c.IsValue, false},
	)

	// Jumps
	j2 := jumpByID(t, q, 2)
	checks = append(checks,
		fieldCheck{"jump2 text", j2.Text, "J2text"},
		fieldCheck{"jump2 description", j2.Description, ""},
		fieldCheck{"jump2 from", j2.From, int32(2)},
		fieldCheck{"jump2 to", j2.To, int32(1)},
		fieldCheck{"jump2 formulaToPass", j2.FormulaToPass, ""},
		fieldCheck{"jump2 dayPassed", j2.DayPassed, false},
		fieldCheck{"jump2 alwaysShow", j2.AlwaysShow, false},
		fieldCheck{"jump2 jumpingCountLimit", j2.CountLimit, int32(0)},
		fieldCheck{"jump2 priority", nearly(j2.Priority, 1), true},
		fieldCheck{"jump2 showingOrder", j2.ShowingOrder, int32(4)},
	)
	j3 := jumpByID(t, q, 3)
	checks = append(checks,
		fieldCheck{"jump3 text", j3.Text, "J3text"},
		fieldCheck{"jump3 description", j3.Description, "J3desciption"},
		fieldCheck{"jump3 from", j3.From, int32(7)},
		fieldCheck{"jump3 to", j3.To, int32(9)},
		fieldCheck{"jump3 formulaToPass", j3.FormulaToPass, "[p4]*[p2]"},
		fieldCheck{"jump3 media", j3.Media, media(isQMM, "j3_img", "j3_sound", "j3_track")},
		fieldCheck{"jump3 dayPassed", j3.DayPassed, true},
		fieldCheck{"jump3 alwaysShow", j3.AlwaysShow, false},
		fieldCheck{"jump3 jumpingCountLimit", j3.CountLimit, int32(34)},
		fieldCheck{"jump3 priority", nearly(j3.Priority, 1.5), true},
		fieldCheck{"jump3 showingOrder", j3.ShowingOrder, int32(5)},
	)
	j4 := jumpByID(t, q, 4)
	checks = append(checks,
		fieldCheck{"jump4 text", j4.Text, "alwaysShow"},
		fieldCheck{"jump4 alwaysShow", j4.AlwaysShow, true},
		fieldCheck{"jump4 jumpingCountLimit", j4.CountLimit, int32(78)},
		fieldCheck{"jump4 priority", nearly(j4.Priority, 0.2), true},
		fieldCheck{"jump4 showingOrder", j4.ShowingOrder, int32(9)},
	)

	// Jump params requirements at jump 5
	j5 := jumpByID(t, q, 5)
	k := q.Condition(j5, 5)
	checks = append(checks,
		fieldCheck{"jump5 p6 mustFrom", k.MustFrom, p[5].Min},
		fieldCheck{"jump5 p6 mustTo", k.MustTo, p[5].Max},
		fieldCheck{"jump5 p6 mustEqualValues", len(k.MustEqualValues), 0},
		fieldCheck{"jump5 p6 mustModValues", len(k.MustModValues), 0},
	)
	k = q.Condition(j5, 8)
	checks = append(checks,
		fieldCheck{"jump5 p9 mustFrom", k.MustFrom, int32(77)},
		fieldCheck{"jump5 p9 mustTo", k.MustTo, int32(222)},
		fieldCheck{"jump5 p9 mustEqualValues", len(k.MustEqualValues), 0},
		fieldCheck{"jump5 p9 mustModValues", len(k.MustModValues), 0},
	)
	k = q.Condition(j5, 9)
	checks = append(checks,
		fieldCheck{"jump5 p10 mustEqualValues", k.MustEqualValues, []int32{56, 58, 81}},
		fieldCheck{"jump5 p10 mustEqualValuesEqual", k.MustEqual, true},
	)
	k = q.Condition(j5, 10)
	checks = append(checks,
		fieldCheck{"jump5 p11 mustEqualValues", k.MustEqualValues, []int32{66, 69}},
		fieldCheck{"jump5 p11 mustEqualValuesEqual", k.MustEqual, false},
	)
	k = q.Condition(j5, 11)
	checks = append(checks,
		fieldCheck{"jump5 p12 mustModValues", k.MustModValues, []int32{44}},
		fieldCheck{"jump5 p12 mustModValuesMod", k.MustMod, true},
	)
	k = q.Condition(j5, 12)
	checks = append(checks,
		fieldCheck{"jump5 p13 mustModValues", k.MustModValues, []int32{45, 46}},
		fieldCheck{"jump5 p13 mustModValuesMod", k.MustMod, false},
	)

	// Jump params change at jump 6
	j6 := jumpByID(t, q, 6)
	c = j6.Change(5)
	checks = append(checks,
		fieldCheck{"jump6 p6 showingType", c.Showing, qmm.ShowingUnchanged},
		fieldCheck{"jump6 p6 change", c.Change, int32(0)},
		fieldCheck{"jump6 p6 isChangeValue", c.IsValue, false},
		fieldCheck{"jump6 p6 isChangePercentage", c.IsPercentage, false},
		fieldCheck{"jump6 p6 isChangeFormula", c.IsFormula, false},
	)
	c = j6.Change(8)
	checks = append(checks,
		fieldCheck{"jump6 p9 showingType", c.Showing, qmm.ShowingHide},
		fieldCheck{"jump6 p9 change", c.Change, int32(-46)},
		fieldCheck{"jump6 p9 isChangeValue", c.IsValue, false},
		fieldCheck{"jump6 p9 isChangePercentage", c.IsPercentage, true},
		fieldCheck{"jump6 p9 isChangeFormula", c.IsFormula, false},
	)
	c = j6.Change(9)
	checks = append(checks,
		fieldCheck{"jump6 p10 showingType", c.Showing, qmm.ShowingShow},
		fieldCheck{"jump6 p10 change", c.Change, int32(48)},
		fieldCheck{"jump6 p10 isChangeValue", c.IsValue, true},
		fieldCheck{"jump6 p10 isChangePercentage", c.IsPercentage, false},
		fieldCheck{"jump6 p10 isChangeFormula", c.IsFormula, false},
	)
	c = j6.Change(10)
	checks = append(checks,
		fieldCheck{"jump6 p11 showingType", c.Showing, qmm.ShowingUnchanged},
		fieldCheck{"jump6 p11 isChangeValue", c.IsValue, false},
		fieldCheck{"jump6 p11 isChangePercentage", c.IsPercentage, false},
		fieldCheck{"jump6 p11 isChangeFormula", c.IsFormula, true},
		fieldCheck{"jump6 p11 changingFormula", c.Formula, "[p10]-[p4]+[p2]"},
	)
	c = j6.Change(11)
	checks = append(checks,
		fieldCheck{"jump6 p12 showingType", c.Showing, qmm.ShowingUnchanged},
		fieldCheck{"jump6 p12 change", c.Change, int32(27)},
		fieldCheck{"jump6 p12 isChangeValue", c.IsValue, false},
		fieldCheck{"jump6 p12 isChangePercentage", c.IsPercentage, false},
		fieldCheck{"jump6 p12 isChangeFormula", c.IsFormula, false},
	)
	c = j6.Change(2)
	checks = append(checks,
		fieldCheck{"jump6 p3 critText", c.CritText, "j6_p3_fail_msg"},
		fieldCheck{"jump6 p3 media", c.Media, media(isQMM, "j6p3img", "j6p3sound", "j6p3track")},
	)
	return checks
}

func TestQMReader(t *testing.T) {
	t.Parallel()
	for _, ext := range []string{"qm", "qmm"} {
		t.Run(ext, func(t *testing.T) {
			t.Parallel()
			q := readQuest(t, "srq-tests/qmreader-1."+ext)
			if q.Magic.IsQMM() != (ext == "qmm") {
				t.Fatalf("magic %v for a .%s file", q.Magic, ext)
			}
			for _, c := range qmreaderChecks(t, q, ext == "qmm") {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
				}
			}
		})
	}
}
