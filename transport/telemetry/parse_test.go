package telemetry

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/prometheus/common/model"
)

// line renders a sample as name{a="x",b="y"} value, for comparing
// against an expected exposition-like listing.
func line(s metrics.TelemetrySample) string {
	var b strings.Builder
	b.WriteString(s.Name)
	if len(s.Labels) > 0 {
		b.WriteByte('{')
		for i, l := range s.Labels {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s=%q", l.Name, l.Value)
		}
		b.WriteByte('}')
	}
	fmt.Fprintf(&b, " %g", s.Value)
	return b.String()
}

func lines(samples []metrics.TelemetrySample) []string {
	out := make([]string, len(samples))
	for i, s := range samples {
		out[i] = line(s)
	}
	return out
}

func TestParseTypes(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{{
		name: "gauge, counter and untyped, colon names, labels sorted",
		in: `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m",engine="0"} 8.0
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="m",engine="0"} 27453.0
no_type{z="1",a="2"} 3
`,
		want: []string{
			`no_type{a="2",z="1"} 3`,
			`vllm:num_requests_running{engine="0",model_name="m"} 8`,
			`vllm:prompt_tokens_total{engine="0",model_name="m"} 27453`,
		},
	}, {
		name: "histogram: buckets with le in label order, then sum and count",
		in: `# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.1",engine="0"} 2.0
vllm:time_to_first_token_seconds_bucket{model_name="m",le="1.0",engine="0"} 5.0
vllm:time_to_first_token_seconds_bucket{model_name="m",le="+Inf",engine="0"} 6.0
vllm:time_to_first_token_seconds_count{model_name="m",engine="0"} 6.0
vllm:time_to_first_token_seconds_sum{model_name="m",engine="0"} 3.25
`,
		want: []string{
			`vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="m"} 2`,
			`vllm:time_to_first_token_seconds_bucket{engine="0",le="1",model_name="m"} 5`,
			`vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="m"} 6`,
			`vllm:time_to_first_token_seconds_sum{engine="0",model_name="m"} 3.25`,
			`vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} 6`,
		},
	}, {
		name: "histogram without +Inf gets it from the count; without a count, none",
		in: `# TYPE a histogram
a_bucket{le="1"} 2
a_count 3
a_sum 1.5
# TYPE b histogram
b_bucket{le="1"} 2
`,
		want: []string{
			`a_bucket{le="1"} 2`, `a_bucket{le="+Inf"} 3`, `a_sum 1.5`, `a_count 3`,
			`b_bucket{le="1"} 2`,
		},
	}, {
		name: "histogram with fractional counts",
		in: `# TYPE f histogram
f_bucket{le="0.5"} 0.5
f_bucket{le="+Inf"} 2.5
f_count 2.5
f_sum 1
`,
		want: []string{`f_bucket{le="0.5"} 0.5`, `f_bucket{le="+Inf"} 2.5`, `f_sum 1`, `f_count 2.5`},
	}, {
		name: "summary: quantiles, then sum and count",
		in: `# TYPE go_gc_duration_seconds summary
go_gc_duration_seconds{quantile="0"} 1.8e-05
go_gc_duration_seconds{quantile="0.5"} 3.1e-05
go_gc_duration_seconds{quantile="1"} NaN
go_gc_duration_seconds_sum 0.0042
go_gc_duration_seconds_count 112
`,
		want: []string{
			`go_gc_duration_seconds{quantile="0"} 1.8e-05`,
			`go_gc_duration_seconds{quantile="0.5"} 3.1e-05`,
			`go_gc_duration_seconds{quantile="1"} NaN`,
			`go_gc_duration_seconds_sum 0.0042`,
			`go_gc_duration_seconds_count 112`,
		},
	}, {
		name: "summary without quantiles (prometheus_fastapi_instrumentator)",
		in: `# TYPE http_request_size_bytes summary
http_request_size_bytes_count{handler="/v1/completions"} 201.0
http_request_size_bytes_sum{handler="/v1/completions"} 40200.0
`,
		want: []string{
			`http_request_size_bytes_sum{handler="/v1/completions"} 40200`,
			`http_request_size_bytes_count{handler="/v1/completions"} 201`,
		},
	}, {
		name: "values as exposed: ±Inf, NaN, exponents, DCGM's not-supported sentinel",
		in: `a +Inf
b -Inf
c NaN
d 5.4917124096e+010
DCGM_FI_DEV_MEMORY_TEMP{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52"} 9223372036854775794
`,
		want: []string{
			`DCGM_FI_DEV_MEMORY_TEMP{UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",gpu="0"} 9.223372036854776e+18`,
			`a +Inf`, `b -Inf`, `c NaN`, `d 5.4917124096e+10`,
		},
	}, {
		name: "timestamps are ignored, escapes unescaped",
		in:   "x{path=\"C:\\\\dir\",q=\"say \\\"hi\\\"\\n\"} 1 1700000000000\n",
		want: []string{`x{path="C:\\dir",q="say \"hi\"\n"} 1`},
	}, {
		name: "UTF-8 names in quotes",
		in: `# TYPE "gpu.power.watts" gauge
{"gpu.power.watts","gpu.index"="0"} 412.5
`,
		want: []string{`gpu.power.watts{gpu.index="0"} 412.5`},
	}, {
		name: "empty exposition",
		in:   "",
		want: []string{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			samples, err := Parse(strings.NewReader(tt.in), "gpu1:9400", 42)
			if err != nil {
				t.Fatal(err)
			}
			if got := lines(samples); !slices.Equal(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for _, s := range samples {
				if s.Time != 42 || s.Source != "gpu1:9400" {
					t.Errorf("%s: time %d source %q", s.Name, s.Time, s.Source)
				}
				if !slices.IsSortedFunc(s.Labels, func(a, b metrics.Label) int { return strings.Compare(a.Name, b.Name) }) {
					t.Errorf("%s: labels not sorted: %v", s.Name, s.Labels)
				}
			}
		})
	}
}

// The parser takes its name validation scheme explicitly, so a process
// that set the deprecated global to the legacy scheme (as older
// Prometheus code does) does not break vLLM's names, nor quoted UTF-8
// names; and parsing never writes the global.
//
//lint:file-ignore SA1019 the test sets the deprecated global on purpose
func TestParseIgnoresTheGlobalValidationScheme(t *testing.T) {
	saved := model.NameValidationScheme
	t.Cleanup(func() { model.NameValidationScheme = saved })
	model.NameValidationScheme = model.LegacyValidation
	in := "vllm:num_requests_waiting{model_name=\"m\"} 3\n{\"a.b\"} 1\n"
	samples, err := Parse(strings.NewReader(in), "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 2 || samples[0].Name != "a.b" || samples[1].Name != "vllm:num_requests_waiting" {
		t.Errorf("samples = %v", lines(samples))
	}
	if model.NameValidationScheme != model.LegacyValidation {
		t.Error("Parse changed model.NameValidationScheme")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not prometheus", "<!DOCTYPE html>\n<html>\n", "line 1"},
		{"unterminated label", "a{gpu=\"0} 1\n", "line 1"},
		{"bad value", "a 1\nb twelve\n", `line 2: expected float as value, got "twelve"`},
		{"type after samples", "a 1\n# TYPE a gauge\n", "line 2"},
		{"unknown type", "# TYPE a gaugeish\n", "line 1"},
		{"negative bucket", "# TYPE h histogram\nh_bucket{le=\"1\"} -1\n", "negative bucket"},
		{"no newline at end", "a 1", "unexpected end of input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			samples, err := Parse(strings.NewReader(tt.in), "gpu1:9400", 0)
			if err == nil {
				t.Fatalf("no error; samples %v", lines(samples))
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "gpu1:9400") {
				t.Errorf("error %q does not name the source and %q", err, tt.want)
			}
			if samples != nil {
				t.Errorf("samples with an error: %v", lines(samples))
			}
		})
	}
}

// Each sample's labels are capped at their length, so appending to one
// (as a consumer adding a host label might) cannot overwrite the next.
func TestParseLabelSlicesAreIndependent(t *testing.T) {
	samples, err := Parse(strings.NewReader("a{x=\"1\"} 1\nb{y=\"2\"} 2\n"), "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = append(samples[0].Labels, metrics.Label{Name: "host", Value: "h"})
	if got := line(samples[1]); got != `b{y="2"} 2` {
		t.Errorf("second sample became %s", got)
	}
}

func TestFormatBound(t *testing.T) {
	for f, want := range map[float64]string{
		math.Inf(1): "+Inf", math.Inf(-1): "-Inf", 1: "1", 0.25: "0.25", 1e-05: "1e-05", 2560: "2560",
	} {
		if got := formatBound(f); got != want {
			t.Errorf("formatBound(%g) = %q, want %q", f, got, want)
		}
	}
	if got := formatBound(math.NaN()); got != "NaN" {
		t.Errorf("formatBound(NaN) = %q", got)
	}
}

// FuzzParse feeds the parser arbitrary bytes: an exposition comes from
// outside, so whatever it holds must give samples or an error, never a
// panic, and every sample must have a name and sorted labels.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"# HELP a x\n# TYPE a gauge\na{b=\"c\"} 1\n",
		"# TYPE h histogram\nh_bucket{le=\"0.5\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n",
		"# TYPE s summary\ns{quantile=\"0.9\"} 1\ns_sum 2\ns_count 3\n",
		"vllm:num_requests_running{model_name=\"m\",engine=\"0\"} 8.0\n",
		"{\"a.b\",\"c.d\"=\"e\"} NaN 123\n",
		"DCGM_FI_DEV_POWER_USAGE{gpu=\"0\", UUID=\"GPU-1\"} 412.345000\n",
		"a{} +Inf\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		samples, err := Parse(strings.NewReader(string(in)), "s", 1)
		if err != nil {
			if samples != nil {
				t.Fatal("samples with an error")
			}
			return
		}
		for _, s := range samples {
			if s.Name == "" {
				t.Fatalf("a sample without a name: %+v", s)
			}
			if !slices.IsSortedFunc(s.Labels, func(a, b metrics.Label) int { return strings.Compare(a.Name, b.Name) }) {
				t.Fatalf("labels not sorted: %v", s.Labels)
			}
		}
	})
}

// Every scrape's sample of a series shares the first scrape's name and
// labels (a long point keeps them all), while different series, and
// series past the parser's bound, keep their own.
func TestParseSharesASeriesAcrossScrapes(t *testing.T) {
	page := "a{gpu=\"0\"} 1\na{gpu=\"1\"} 2\nh_bucket{le=\"1\"} 3\nh_bucket{le=\"+Inf\"} 4\nh_sum 5\nh_count 4\n"
	p := newParser()
	first, err := p.parse(strings.NewReader(page), "s", 1)
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.parse(strings.NewReader(page), "s", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 6 || len(second) != 6 {
		t.Fatalf("%d and %d samples, want 6", len(first), len(second))
	}
	for i := range first {
		if line(first[i]) != line(second[i]) || second[i].Time != 2 {
			t.Errorf("sample %d: %s then %s at %d", i, line(first[i]), line(second[i]), second[i].Time)
		}
		if len(first[i].Labels) > 0 && &first[i].Labels[0] != &second[i].Labels[0] {
			t.Errorf("%s: the second scrape has its own copy of the labels", line(second[i]))
		}
	}
	if &first[0].Labels[0] == &first[1].Labels[0] {
		t.Error("two series share one label slice")
	}

	var big strings.Builder
	for i := range maxSeries + 10 {
		fmt.Fprintf(&big, "m{i=\"%d\"} %d\n", i, i)
	}
	for range 2 {
		samples, err := p.parse(strings.NewReader(big.String()), "s", 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			if s.Label("i") != strconv.FormatFloat(s.Value, 'f', -1, 64) {
				t.Fatalf("past the bound: %s", line(s))
			}
		}
	}
}
