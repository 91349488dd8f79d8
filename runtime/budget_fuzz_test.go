package runtime

import (
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/runtime/plan"
)

// FuzzErrorBudget: a --max-error-rate (or error_budget=) value is refused
// with a message quoting it or saying the range, or is a share from 0 to
// 1 whose percentage, as the budget is written back, reads again as the
// same share, and "X%" is X hundredths of what "X" is.
func FuzzErrorBudget(f *testing.F) {
	for _, s := range []string{"5%", "0.05", " 5 % ", "100%", "1", "0", "0%", "101%", "1.01", "-0", "-1%", "NaN", "inf%", "%", "",
		"0x1p-4", "1e-400", "12.345678901234567%", "5%%", "1_0%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := plan.ParseErrorBudget(s)
		if err != nil {
			if b != nil || !strings.Contains(err.Error(), "got ") {
				t.Fatalf("%q: %v, %v: want only an error saying what it got", s, b, err)
			}
			return
		}
		if !(b.MaxRate >= 0 && b.MaxRate <= 1) {
			t.Fatalf("%q gave a budget of %v", s, b.MaxRate)
		}
		again, err := plan.ParseErrorBudget(b.String())
		if err != nil || math.Abs(again.MaxRate-b.MaxRate) > 1e-11 {
			t.Fatalf("%q gave %v, written %q, which reads as %v, %v", s, b.MaxRate, b.String(), again, err)
		}
		if text, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
			whole, err := plan.ParseShare(text)
			if err != nil || math.Abs(whole/100-b.MaxRate) > 1e-15 {
				t.Fatalf("%q gave %v, %q gives %v, %v", s, b.MaxRate, text, whole, err)
			}
		}
	})
}
