package metrics

import (
	"fmt"
	"strings"
)

// checkRatio refuses the ratio gates that cannot mean what they say. A
// ratio is written as a percentage ("1%") or as a fraction below 1
// ("0.01"), never as a bare 1: "error_rate < 1" reads as "under 1%" but is
// "under 100%", and passed a run with 45% errors. A gate that can never
// fail (<= 100%, >= 0%) or never pass (< 0%, > 100%) is refused too, and
// so is one that only a total failure can fail (error_rate < 100%): none
// of them guards anything. Other limits at 100% stay: "kv_cache_usage.max
// < 100%" (the cache never filled) is a real condition.
func (p *gateParser) checkRatio(g *Gate, m *Metric, start int, text, unit string) *GateError {
	written := strings.TrimSpace(p.src[start:p.pos])
	switch {
	case unit == "" && g.Value == 1:
		return p.errorf(start, "a bare %s is the ratio 1, that is 100%%: did you mean 1%%? Write a ratio as a percentage (1%%) or as a fraction below 1 (0.01)", text)
	case g.Op == "<=" && g.Value == 1, g.Op == ">=" && g.Value == 0:
		return p.errorf(start, "%s %s %s can never fail: %s is always between 0%% and 100%%", g.Name(), g.Op, written, m.Name)
	case g.Op == "<" && g.Value == 0, g.Op == ">" && g.Value == 1:
		return p.errorf(start, "%s %s %s can never pass: %s is always between 0%% and 100%%", g.Name(), g.Op, written, m.Name)
	case m.whole != "" && g.Value == 1 && (g.Op == "<" || g.Op == "!="):
		return p.errorf(start, "%s %s %s fails only when %s: did you mean 1%%?", g.Name(), g.Op, written, m.whole)
	}
	return nil
}

// isCurrencyCode reports whether u has the shape of an ISO 4217 currency
// code (USD, EUR), the unit a cost gate may carry.
func isCurrencyCode(u string) bool {
	if len(u) != 3 {
		return false
	}
	for i := range len(u) {
		if u[i] < 'A' || u[i] > 'Z' {
			return false
		}
	}
	return true
}

// PriceIn gives a cost_per_mtok gate the currency the experiment prices
// its deployment in (cost_per_hour's), so reports say "2.00 USD per
// Mtok", and refuses a gate written in another currency: llmbench does not
// convert. Other gates are left alone.
func (g *Gate) PriceIn(currency string) error {
	if g.Needs() != NeedCost || currency == "" {
		return nil
	}
	if g.Currency != "" && g.Currency != currency {
		return fmt.Errorf("gate %q is in %s, but the deployment is priced in %s (currency=): write the limit in %s", g.Source, g.Currency, currency, currency)
	}
	g.Currency = currency
	return nil
}
