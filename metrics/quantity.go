package metrics

import (
	"math"
	"strconv"
)

// quantity is what a metric measures. It decides which units a gate
// value may be written in, the native unit it is stored in, and how reports
// show it.
type quantity int

const (
	// quantityTime is stored in ns and written in ms (also the unit of a
	// bare number, since every report shows ms), s, us, µs or ns.
	quantityTime quantity = iota
	// quantityTokens is a token count, written as a plain number.
	quantityTokens
	// quantityThroughput is a rate per second, written plain or with /s.
	quantityThroughput
	// quantityRatio is stored as a ratio from 0 to 1, written plain (a
	// ratio) or with % (a percentage).
	quantityRatio
	// quantityEnergy is joules per output token, written plain or with J.
	quantityEnergy
	// quantityPower is watts, written plain or with W.
	quantityPower
	// quantityCost is the cost per million output tokens, in the currency
	// of cost_per_hour, written as a plain number or with that currency's
	// code (Gate.Currency).
	quantityCost
	// quantityCount is a number of requests (a queue length), written as a
	// plain number.
	quantityCount
	// quantityFlag is a verdict as a number: 1 true, 0 false
	// ("client_limited == 0").
	quantityFlag
	// quantityTally is a whole number of requests (request_count), a
	// report-only value.
	quantityTally
	// quantityAmount is a plain count of things per request that are
	// neither tokens nor requests (pictures, bytes), written plain.
	quantityAmount
)

// unitConversion turns a number written in some unit into the native unit.
type unitConversion func(float64) float64

func scaleBy(f float64) unitConversion  { return func(v float64) float64 { return v * f } }
func divideBy(f float64) unitConversion { return func(v float64) float64 { return v / f } }
func sameUnit(v float64) float64        { return v }

// quantityUnits lists, per quantity, every unit a gate value may carry
// ("" for a bare number) with its conversion, and what to tell a user who
// wrote another one.
var quantityUnits = map[quantity]struct {
	units map[string]unitConversion
	want  string
}{
	quantityTime: {map[string]unitConversion{
		"": scaleBy(1e6), "ms": scaleBy(1e6), "s": scaleBy(1e9),
		"us": scaleBy(1e3), "µs": scaleBy(1e3), "μs": scaleBy(1e3), "ns": sameUnit,
	}, "ms, s, us or ns"},
	quantityTokens:     {map[string]unitConversion{"": sameUnit}, "a plain number of tokens"},
	quantityThroughput: {map[string]unitConversion{"": sameUnit, "/s": sameUnit}, "/s or no unit"},
	quantityRatio:      {map[string]unitConversion{"": sameUnit, "%": divideBy(100)}, "% or a plain ratio such as 0.01"},
	quantityEnergy:     {map[string]unitConversion{"": sameUnit, "J": sameUnit}, "J or no unit (joules per output token)"},
	quantityPower:      {map[string]unitConversion{"": sameUnit, "W": sameUnit}, "W or no unit"},
	quantityCost:       {map[string]unitConversion{"": sameUnit}, "a plain number or the currency of cost_per_hour, such as 2.5 USD (cost per million output tokens)"},
	quantityCount:      {map[string]unitConversion{"": sameUnit}, "a plain number of requests"},
	quantityFlag:       {map[string]unitConversion{"": sameUnit}, "0 or 1"},
	quantityAmount:     {map[string]unitConversion{"": sameUnit}, "a plain number"},
}

// isKnownUnit reports whether u is a unit of some quantity, which tells
// "this unit does not apply to this metric" apart from "no such unit".
func isKnownUnit(u string) bool {
	if isCurrencyCode(u) {
		return true
	}
	for _, q := range quantityUnits {
		if _, ok := q.units[u]; ok {
			return true
		}
	}
	return false
}

// displayConversions are, per quantity, the conversions between the
// native unit and the unit reports show (ms for times, % for ratios).
func (q quantity) displayConversions() (toDisplay, fromDisplay unitConversion) {
	switch q {
	case quantityTime:
		return divideBy(1e6), scaleBy(1e6)
	case quantityRatio:
		return scaleBy(100), divideBy(100)
	}
	return sameUnit, sameUnit
}

// decimalIn renders the native value v in a display unit as the shortest
// plain decimal that converts back to exactly v, so that a gate rendered in
// report units parses to the same gate. ok is false when no decimal in the
// display unit gets back to v; the caller then writes v in the native unit.
func decimalIn(v float64, toDisplay, fromDisplay unitConversion) (text string, ok bool) {
	x := toDisplay(v)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return "", false
	}
	back := func(t string) bool {
		f, err := strconv.ParseFloat(t, 64)
		return err == nil && fromDisplay(f) == v
	}
	if math.Abs(x) < 1e21 {
		for decimals := 0; decimals <= 20; decimals++ {
			if t := strconv.FormatFloat(x, 'f', decimals, 64); back(t) {
				return t, true
			}
		}
	}
	if t := strconv.FormatFloat(x, 'g', -1, 64); back(t) {
		return t, true
	}
	return "", false
}

// plainNumber renders v as the shortest decimal that parses back to it.
func plainNumber(v float64) string {
	t, _ := decimalIn(v, sameUnit, sameUnit)
	if t == "" {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return t
}
