package main

import (
	"strings"

	"github.com/llmbench/llmbench/reports/html"
	"github.com/llmbench/llmbench/runtime"
)

// scenarioConfig lists what a reader of the report needs to know about
// how it was produced; endpoint headers are never included.
func scenarioConfig(scen *runtime.Scenario) []html.KV {
	names := make([]string, len(scen.Experiments))
	for i, e := range scen.Experiments {
		names[i] = e.Name
	}
	return []html.KV{
		{Key: "scenario", Value: scen.File},
		{Key: "experiments", Value: strings.Join(names, ", ")},
		{Key: "llmbench", Value: version},
	}
}
