package main

import (
	"github.com/alecthomas/kong"
)

// unsetByZero are flags whose zero value means "not given", so an explicit
// zero would silently become the default: `--concurrency 0` would measure
// concurrency 1 and `--request-rate 0` a closed loop.
var unsetByZero = map[string]string{
	"concurrency":  "want >= 1 (leave it out for the default, 1)",
	"request-rate": "want > 0 requests per second (leave it out for a closed loop)",
}

// refuseExplicitZeros is exit 2 for a flag of unsetByZero given as 0.
func refuseExplicitZeros(kctx *kong.Context) error {
	for _, f := range kctx.Flags() {
		want, ok := unsetByZero[f.Name]
		if !ok || !f.Set {
			continue
		}
		if v := kctx.FlagValue(f); v == 0 || v == 0.0 {
			return invalid("--%s: got 0, %s", f.Name, want)
		}
	}
	return nil
}
