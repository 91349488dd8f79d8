package metrics

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"
)

// fuzzSeries are the series a fuzzed telemetry sample may belong to: the
// DCGM fields and vLLM metrics the reductions read, and one they ignore.
var fuzzSeries = []string{"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_GPU_UTIL",
	"DCGM_FI_DEV_FB_USED", "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:gpu_cache_usage_perc",
	"vllm:time_to_first_token_seconds_bucket", "vllm:time_to_first_token_seconds_sum", "vllm:time_to_first_token_seconds_count",
	"vllm:num_preemptions_total", "other"}

// fuzzSamples turns bytes into telemetry samples, 11 bytes each: a
// series, a source, a GPU (or none), a time step and a value's bits (so
// NaN, infinities, negative and huge values all occur).
func fuzzSamples(b []byte) []TelemetrySample {
	var out []TelemetrySample
	at := int64(0)
	for ; len(b) >= 11; b = b[11:] {
		var labels []Label
		if gpu := b[2] % 4; gpu < 3 {
			labels = []Label{{Name: "gpu", Value: string('0' + rune(gpu))}, {Name: "UUID", Value: "GPU-" + string('a'+rune(gpu))}}
		}
		if int(b[0])%len(fuzzSeries) == 7 { // a bucket: give it a bound
			labels = append(labels, Label{Name: "le", Value: []string{"0.1", "1", "+Inf", "x"}[b[2]%4]})
		}
		at += int64(int8(b[3])) * 1e7
		v := math.Float64frombits(binary.LittleEndian.Uint64(append(b[4:11:11], b[10]>>7)))
		out = append(out, TelemetrySample{Time: at, Source: []string{"h1:9400", "h2:8000"}[b[1]%2],
			Name: fuzzSeries[int(b[0])%len(fuzzSeries)], Labels: labels, Value: v})
	}
	return out
}

// FuzzReduceTelemetry reduces any samples a /metrics page or a damaged
// telemetry.parquet can hand over, over any window (the run's tokens and
// the user's price per hour as they can be). It never panics, and
// every figure of the summary is a finite number (NaN and infinities, a
// page's or a division's, become unknown values with a reason, never a
// figure in summary.json or on the console); energy is never negative.
func FuzzReduceTelemetry(f *testing.F) {
	f.Add([]byte{1, 0, 0, 10, 0, 0, 0, 0, 0, 0x59, 0x40, 1, 0, 0, 10, 0, 0, 0, 0, 0, 0x5a, 0x40}, int64(0), int64(1e9), uint32(100), uint32(250))
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0xf8, 0x7f, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0xf0, 0x7f}, int64(-5), int64(5), uint32(0), uint32(0))
	f.Add([]byte{1, 0, 0, 1, 0, 0, 0, 0, 0, 0x59, 0x40, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0x49, 0x40}, int64(0), int64(3e7), uint32(1), uint32(math.MaxUint32))
	f.Fuzz(func(t *testing.T, data []byte, start, end int64, tokens, cents uint32) {
		w := TelemetryWindow{Start: start, End: end, OutputTokens: float64(tokens), CostPerHour: float64(cents) / 100, Currency: "USD"}
		s := ReduceTelemetry(fuzzSamples(data), w)
		checkFinite(t, reflect.ValueOf(s), "summary")
		if s.Energy.OK && s.Energy.Value < 0 {
			t.Fatalf("energy %v J", s.Energy.Value)
		}
	})
}

// checkFinite fails on any NaN or infinite float reachable from v, except
// the window's own inputs, the server latencies' statistics (NaN when
// unknown, by design) and the +Inf bucket's bound.
func checkFinite(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			t.Fatalf("%s is %v", path, f)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			checkFinite(t, v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			name := v.Type().Field(i).Name
			if v.Type() == reflect.TypeFor[ServerLatency]() && (name == "Mean" || name == "P50" || name == "P90" || name == "P99") {
				continue // NaN by design when the histogram lacks what they need (its readers say n/a)
			}
			if v.Type() == reflect.TypeFor[HistogramBucket]() && name == "UpperBound" {
				continue // the +Inf bucket
			}
			if v.Type().Field(i).IsExported() && name != "Window" {
				checkFinite(t, v.Field(i), path+"."+name)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			checkFinite(t, v.Index(i), path+"["+string(rune('0'+i%10))+"]")
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			checkFinite(t, it.Value(), path+"[…]")
		}
	}
}
