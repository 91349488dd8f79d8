package main

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/llmbench/llmbench/runtime/plan"
)

// analyzePoint is one point of an analyze sweep: the profile flags with
// the swept flag set, which is how GenAI-Perf derives each point's
// arguments, so a point measures exactly what `profile` would with those
// flags.
type analyzePoint struct {
	flags profileFlags
	// label is the folder suffix and point name: "concurrency8".
	label string
	// params are the point's load and swept values, by runtime's names.
	params plan.Params
	// config identifies the point in the checkpoint.
	config []byte
}

// sweepPoints derives every point of the sweep from the base flags.
func sweepPoints(base *profileFlags, spec sweepSpec) ([]analyzePoint, error) {
	points := make([]analyzePoint, 0, len(spec.values))
	for _, v := range spec.values {
		p := analyzePoint{flags: *base, label: objective(spec.kind, v)}
		spec.kind.set(&p.flags, v)
		p.params = plan.ParamsOf(p.flags.point().Load)
		p.params[spec.kind.param] = v
		config, err := pointConfig(&p.flags, p.label)
		if err != nil {
			return nil, runFailed("internal error: %w", err)
		}
		p.config = config
		points = append(points, p)
	}
	return points, nil
}

// configExcluded are the flags left out of a point's identity, following
// GenAI-Perf's checkpoint "representation" (which drops the URL and the
// artifact paths): they may change between an interrupted sweep and its
// resume without changing what is measured. Header values are secrets and
// are replaced by the header names; the API key is a secret too, and the
// checkpoint only marks that one was given (artifacts.OpenSweepCheckpoint).
var configExcluded = map[string]bool{
	"URL": true, "SourceAddress": true, "ArtifactDir": true, "ProfileExportFile": true,
	"GeneratePlots": true, "Verbose": true, "Insecure": true, "Telemetry": true, "Strict": true,
	"APIKey": true,
}

// pointConfig renders the identity of a point as a JSON object: the sweep
// point's name and every other profile flag by field name. Reflection
// means a flag added later is part of the identity by default, the safe
// side: a resume may redo a point, never reuse a different one.
func pointConfig(f *profileFlags, label string) ([]byte, error) {
	m := map[string]any{"sweep_point": label}
	v := reflect.ValueOf(f).Elem()
	t := v.Type()
	for i := range t.NumField() {
		name := t.Field(i).Name
		switch {
		case configExcluded[name]:
		case name == "Header":
			m[name] = headerNames(f.Header)
		default:
			m[name] = v.Field(i).Interface()
		}
	}
	return json.Marshal(m) // map keys are sorted: the same flags give the same bytes
}

func headerNames(specs []string) []string {
	names := make([]string, 0, len(specs))
	for _, h := range specs {
		name, _, _ := strings.Cut(h, ":")
		names = append(names, strings.ToLower(strings.TrimSpace(name)))
	}
	return names
}
