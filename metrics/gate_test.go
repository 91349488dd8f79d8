package metrics

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sameGate compares gates but for Source.
func sameGate(a, b Gate) bool {
	return a.Metric == b.Metric && a.Stat == b.Stat && a.Op == b.Op && a.Value == b.Value &&
		a.Baseline == b.Baseline && slices.Equal(a.At, b.At) && a.Component == b.Component && a.PerGPU == b.PerGPU &&
		a.Currency == b.Currency
}

func TestParseGate(t *testing.T) {
	at := func(conds ...PointCondition) []PointCondition { return conds }
	cases := []struct {
		in   string
		want Gate
	}{
		// The SPEC §6 and issue examples.
		{"ttft.p99 < 500ms @ concurrency=16", Gate{Metric: TTFT, Stat: "p99", Op: "<", Value: 500e6,
			At: at(PointCondition{"concurrency", 16})}},
		{"error_rate < 1%", Gate{Metric: ErrorRate, Op: "<", Value: 0.01}},
		{"output_token_throughput >= 1000 @ concurrency=16", Gate{Metric: OutputTokenThroughput, Op: ">=",
			Value: 1000, At: at(PointCondition{"concurrency", 16})}},
		{"output_token_throughput >= 1500", Gate{Metric: OutputTokenThroughput, Op: ">=", Value: 1500}},
		{"itl.p90 < 30ms @ concurrency=16", Gate{Metric: ITL, Stat: "p90", Op: "<", Value: 30e6,
			At: at(PointCondition{"concurrency", 16})}},
		{"ttft.p99 <= baseline * 1.10", Gate{Metric: TTFT, Stat: "p99", Op: "<=", Value: 1.1, Baseline: true}},
		// Per-component gates, alone and with a point.
		{"ttft.p99 < 300ms @ component=chat", Gate{Metric: TTFT, Stat: "p99", Op: "<", Value: 300e6, Component: "chat"}},
		{"ttft.p99 < 300ms @ concurrency=16, component=chat", Gate{Metric: TTFT, Stat: "p99", Op: "<", Value: 300e6,
			At: at(PointCondition{"concurrency", 16}), Component: "chat"}},
		// Per-replica gates.
		{"ttft.p99 < 300ms @ replica=1", Gate{Metric: TTFT, Stat: "p99", Op: "<", Value: 300e6, Replica: ptrInt(1)}},
		{"ttft.p99 < 300ms @ replica = 0, concurrency=16, component=chat", Gate{Metric: TTFT, Stat: "p99", Op: "<", Value: 300e6,
			At: at(PointCondition{"concurrency", 16}), Component: "chat", Replica: ptrInt(0)}},
		{"ttft.p99 < 300ms @ component = rag-long.v2 , concurrency=16", Gate{Metric: TTFT, Stat: "p99", Op: "<", Value: 300e6,
			At: at(PointCondition{"concurrency", 16}), Component: "rag-long.v2"}},

		// Baseline forms.
		{"ttft.p99 <= baseline*1.1", Gate{Metric: TTFT, Stat: "p99", Op: "<=", Value: 1.1, Baseline: true}},
		{"ttft.p99 <= 1.1 * baseline", Gate{Metric: TTFT, Stat: "p99", Op: "<=", Value: 1.1, Baseline: true}},
		{"ttft.p99 <= 1.1*baseline", Gate{Metric: TTFT, Stat: "p99", Op: "<=", Value: 1.1, Baseline: true}},
		{"request_throughput >= baseline", Gate{Metric: RequestThroughput, Op: ">=", Value: 1, Baseline: true}},
		{"output_token_throughput >= baseline * 0.95 @ rate=10", Gate{Metric: OutputTokenThroughput,
			Op: ">=", Value: 0.95, Baseline: true, At: at(PointCondition{"rate", 10})}},

		// Time units; a bare number is ms.
		{"ttft < 500", Gate{Metric: TTFT, Stat: "avg", Op: "<", Value: 500e6}},
		{"ttft < 0.5s", Gate{Metric: TTFT, Stat: "avg", Op: "<", Value: 500e6}},
		{"ttft < 1.5 s", Gate{Metric: TTFT, Stat: "avg", Op: "<", Value: 1.5e9}},
		{"itl < 250us", Gate{Metric: ITL, Stat: "avg", Op: "<", Value: 250e3}},
		{"itl < 250µs", Gate{Metric: ITL, Stat: "avg", Op: "<", Value: 250e3}},
		{"itl < 250μs", Gate{Metric: ITL, Stat: "avg", Op: "<", Value: 250e3}},
		{"itl < 1234ns", Gate{Metric: ITL, Stat: "avg", Op: "<", Value: 1234}},
		{"ttft < .5ms", Gate{Metric: TTFT, Stat: "avg", Op: "<", Value: 500e3}},
		{"ttft < 1e3ms", Gate{Metric: TTFT, Stat: "avg", Op: "<", Value: 1e9}},
		{"ttft < 0.1ms", Gate{Metric: TTFT, Stat: "avg", Op: "<", Value: 1e5}},

		// Statistics and their normalisation.
		{"ttft.mean < 5", Gate{Metric: TTFT, Stat: "avg", Op: "<", Value: 5e6}},
		{"ttft.median < 5", Gate{Metric: TTFT, Stat: "p50", Op: "<", Value: 5e6}},
		{"ttft.min > 1", Gate{Metric: TTFT, Stat: "min", Op: ">", Value: 1e6}},
		{"ttft.max < 9", Gate{Metric: TTFT, Stat: "max", Op: "<", Value: 9e6}},
		{"ttft.std < 2", Gate{Metric: TTFT, Stat: "std", Op: "<", Value: 2e6}},
		{"ttft.p99.9 < 800ms", Gate{Metric: TTFT, Stat: "p99.9", Op: "<", Value: 800e6}},
		{"ttft.p099.90 < 800ms", Gate{Metric: TTFT, Stat: "p99.9", Op: "<", Value: 800e6}},
		{"ttft.p0 < 1", Gate{Metric: TTFT, Stat: "p0", Op: "<", Value: 1e6}},
		{"ttft.p100 < 1", Gate{Metric: TTFT, Stat: "p100", Op: "<", Value: 1e6}},
		{"output_token_throughput.avg > 1", Gate{Metric: OutputTokenThroughput, Op: ">", Value: 1}},
		{"error_rate.avg < 1%", Gate{Metric: ErrorRate, Op: "<", Value: 0.01}},
		{"output_token_throughput_per_user.p10 >= 20", Gate{Metric: OutputTokenThroughputPerUser,
			Stat: "p10", Op: ">=", Value: 20}},
		{"isl.max <= 4096", Gate{Metric: ISL, Stat: "max", Op: "<=", Value: 4096}},
		{"gpu_power.max < 700W", Gate{Metric: GPUPower, Stat: "max", Op: "<", Value: 700}},
		{"gpu_utilization > 80%", Gate{Metric: GPUUtilization, Stat: "avg", Op: ">", Value: 0.8}},
		{"kv_cache_usage.max < 90%", Gate{Metric: KVCacheUsage, Stat: "max", Op: "<", Value: 0.9}},
		{"kv_cache_usage < 0.5", Gate{Metric: KVCacheUsage, Stat: "avg", Op: "<", Value: 0.5}},
		{"num_requests_waiting.max <= 4", Gate{Metric: NumRequestsWaiting, Stat: "max", Op: "<=", Value: 4}},
		{"num_requests_waiting < 1.5 @ concurrency=64", Gate{Metric: NumRequestsWaiting, Stat: "avg", Op: "<",
			Value: 1.5, At: at(PointCondition{"concurrency", 64})}},

		// Per-GPU forms.
		{"gpu_power.per_gpu.max < 700W", Gate{Metric: GPUPower, PerGPU: true, Stat: "max", Op: "<", Value: 700}},
		{"gpu_power.per_gpu < 500", Gate{Metric: GPUPower, PerGPU: true, Stat: "avg", Op: "<", Value: 500}},
		{"gpu_utilization.per_gpu.p10 >= 50%", Gate{Metric: GPUUtilization, PerGPU: true, Stat: "p10", Op: ">=", Value: 0.5}},

		// GenAI-Perf's long names.
		{"time_to_first_token.p99 < 5", Gate{Metric: TTFT, Stat: "p99", Op: "<", Value: 5e6}},
		{"time_to_second_token < 5", Gate{Metric: TTST, Stat: "avg", Op: "<", Value: 5e6}},
		{"inter_token_latency.p50 < 5", Gate{Metric: ITL, Stat: "p50", Op: "<", Value: 5e6}},
		{"input_sequence_length.avg > 5", Gate{Metric: ISL, Stat: "avg", Op: ">", Value: 5}},
		{"output_sequence_length < 5", Gate{Metric: OSL, Stat: "avg", Op: "<", Value: 5}},
		{"time_to_first_output_token.p90 < 5", Gate{Metric: TTFO, Stat: "p90", Op: "<", Value: 5e6}},

		// Ratios, throughputs and the other quantities.
		{"error_rate < 0.01", Gate{Metric: ErrorRate, Op: "<", Value: 0.01}},
		{"error_rate <= 99.5%", Gate{Metric: ErrorRate, Op: "<=", Value: 0.995}},
		{"kv_cache_usage.max < 100%", Gate{Metric: KVCacheUsage, Stat: "max", Op: "<", Value: 1}},
		{"cost_per_mtok <= 2 USD", Gate{Metric: CostPerMtok, Op: "<=", Value: 2, Currency: "USD"}},
		{"error_rate == 0", Gate{Metric: ErrorRate, Op: "==", Value: 0}},
		{"error_rate < 0.5%", Gate{Metric: ErrorRate, Op: "<", Value: 0.005}},
		{"request_throughput > 10/s", Gate{Metric: RequestThroughput, Op: ">", Value: 10}},
		{"request_goodput >= 8.5", Gate{Metric: RequestGoodput, Op: ">=", Value: 8.5}},
		{"energy_per_token < 0.3J", Gate{Metric: EnergyPerToken, Op: "<", Value: 0.3}},
		{"cost_per_mtok < 2.5", Gate{Metric: CostPerMtok, Op: "<", Value: 2.5}},
		{"schedule_lag.p99 < 5ms", Gate{Metric: ScheduleLag, Stat: "p99", Op: "<", Value: 5e6}},
		{"ttft_from_schedule.p99 < 1s", Gate{Metric: TTFTFromSchedule, Stat: "p99", Op: "<", Value: 1e9}},
		{"request_latency_from_schedule < 2500", Gate{Metric: RequestLatencyFromSchedule, Stat: "avg", Op: "<", Value: 2500e6}},
		{"chunk_gap.max != 0", Gate{Metric: ChunkGap, Stat: "max", Op: "!=", Value: 0}},
		{"ttst.p95 > 0", Gate{Metric: TTST, Stat: "p95", Op: ">", Value: 0}},
		{"request_latency.p75 < 2s", Gate{Metric: RequestLatency, Stat: "p75", Op: "<", Value: 2e9}},

		// Spacing and conditions.
		{"ttft.p99<500ms@concurrency=16", Gate{Metric: TTFT, Stat: "p99", Op: "<", Value: 500e6,
			At: at(PointCondition{"concurrency", 16})}},
		{"  ttft.p99\t<  500 ms  @  concurrency = 16 ,rate= 2.5 , input_tokens=512, output_tokens =128  ",
			Gate{Metric: TTFT, Stat: "p99", Op: "<", Value: 500e6, At: at(
				PointCondition{"concurrency", 16}, PointCondition{"rate", 2.5},
				PointCondition{"input_tokens", 512}, PointCondition{"output_tokens", 128})}},
	}
	for _, c := range cases {
		got, err := ParseGate(c.in)
		if err != nil {
			t.Errorf("ParseGate(%q): %v", c.in, err)
			continue
		}
		if got.Source != c.in {
			t.Errorf("ParseGate(%q).Source = %q", c.in, got.Source)
		}
		if !sameGate(got, c.want) {
			t.Errorf("ParseGate(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseGateErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		// Empty and missing parts.
		{"", `gate "": col 1: empty gate, want METRIC[.STAT] OP VALUE such as "ttft.p99 < 500ms"`},
		{"   ", `gate "   ": col 4: empty gate, want METRIC[.STAT] OP VALUE such as "ttft.p99 < 500ms"`},
		{"< 5", `gate "< 5": col 1: want a metric such as ttft.p99 or error_rate, got "<"`},
		{"ttft", `gate "ttft": col 5: want an operator (<, <=, >, >=, == or !=), got end of gate`},
		{"ttft <", `gate "ttft <": col 7: want a number or baseline, got end of gate`},
		// Components.
		{"ttft < 5 @ component=", `gate "ttft < 5 @ component=": col 22: want a dataset component's name after component=, got end of gate`},
		{"ttft < 5 @ component=a, component=b", `gate "ttft < 5 @ component=a, component=b": col 25: component is given twice`},
		{"ttft < 5 @ component chat", `gate "ttft < 5 @ component chat": col 22: want "=" after component, got "chat"`},
		// Replicas.
		{"ttft < 5 @ replica=", `gate "ttft < 5 @ replica=": col 20: want a replica's index (0, 1, ...) in the endpoint's URL list after replica=, got end of gate`},
		{"ttft < 5 @ replica=-1", `gate "ttft < 5 @ replica=-1": col 20: want a replica's index (0, 1, ...) in the endpoint's URL list after replica=, got "-1"`},
		{"ttft < 5 @ replica=1.5", `gate "ttft < 5 @ replica=1.5": col 20: want a replica's index (0, 1, ...) in the endpoint's URL list after replica=, got "1.5"`},
		{"ttft < 5 @ replica=a", `gate "ttft < 5 @ replica=a": col 20: want a replica's index (0, 1, ...) in the endpoint's URL list after replica=, got "a"`},
		{"ttft < 5 @ replica=0, replica=1", `gate "ttft < 5 @ replica=0, replica=1": col 23: replica is given twice`},
		{"ttft < 5 @ replica 1", `gate "ttft < 5 @ replica 1": col 20: want "=" after replica, got "1"`},
		{"gpu_power < 700W @ replica=0", `gate "gpu_power < 700W @ replica=0": col 20: gpu_power is measured from telemetry for the whole point, which has no value per replica; drop replica=`},
		{"ttft.p99 < baseline * 1.1 @ replica=0", `gate "ttft.p99 < baseline * 1.1 @ replica=0": col 29: a baseline gate compares whole points; drop replica=`},
		// Metric.
		{"ttfb.p99 < 5", `gate "ttfb.p99 < 5": col 1: unknown metric "ttfb", want ttft, ttst, itl, request_latency, ` +
			`ttfo, isl, osl, image_count, image_bytes, audio_count, audio_bytes, image_throughput, image_latency, output_token_throughput_per_user, output_token_throughput, request_throughput, ` +
			`request_goodput, error_rate, cache_hit_share, schedule_lag, ttft_from_schedule, request_latency_from_schedule, ` +
			`chunk_gap, energy_per_token, cost_per_mtok, gpu_power, ` +
			`gpu_utilization, kv_cache_usage, num_requests_waiting or client_limited`},
		// Statistic.
		{"ttft. < 5", `gate "ttft. < 5": col 6: want a statistic after "ttft.", such as avg or p99`},
		{"ttft.p999x < 5", `gate "ttft.p999x < 5": col 6: unknown statistic "p999x", want avg, min, max, std, ` +
			`median or a percentile such as p99 or p99.9`},
		{"ttft.p < 5", `gate "ttft.p < 5": col 6: unknown statistic "p", want avg, min, max, std, ` +
			`median or a percentile such as p99 or p99.9`},
		{"ttft.p99. < 5", `gate "ttft.p99. < 5": col 6: unknown statistic "p99.", want avg, min, max, std, ` +
			`median or a percentile such as p99 or p99.9`},
		{"ttft.p101 < 5", `gate "ttft.p101 < 5": col 6: percentile "p101" is outside p0..p100`},
		{"output_token_throughput.p99 > 5", `gate "output_token_throughput.p99 > 5": col 25: ` +
			`output_token_throughput is a run-level value and takes no statistic (at most .avg), got "p99"`},
		{"error_rate.max < 1%", `gate "error_rate.max < 1%": col 12: ` +
			`error_rate is a run-level value and takes no statistic (at most .avg), got "max"`},
		// Operator.
		{"ttft = 5", `gate "ttft = 5": col 6: want an operator (<, <=, >, >=, == or !=), got "="`},
		{"ttft => 5", `gate "ttft => 5": col 6: want an operator (<, <=, >, >=, == or !=), got "=>"`},
		{"ttft.p99 500ms", `gate "ttft.p99 500ms": col 10: want an operator (<, <=, >, >=, == or !=), got "500ms"`},
		// Value and unit.
		{"ttft.p99 < 5xx", `gate "ttft.p99 < 5xx": col 13: unknown unit "xx", want ms, s, us or ns`},
		{"ttft.p99 < 5 xx", `gate "ttft.p99 < 5 xx": col 14: unknown unit "xx", want ms, s, us or ns`},
		{"ttft.p99 < fast", `gate "ttft.p99 < fast": col 12: want a number or baseline, got "fast"`},
		{"ttft.p99 < -5", `gate "ttft.p99 < -5": col 12: want a number or baseline, got "-5"`},
		{"ttft.p99 < 1e999", `gate "ttft.p99 < 1e999": col 12: number "1e999" is out of range`},
		{"ttft.p99 < 1e308s", `gate "ttft.p99 < 1e308s": col 12: value "1e308s" is out of range`},
		{"ttft < 5%", `gate "ttft < 5%": col 9: unit "%" does not apply to ttft, want ms, s, us or ns`},
		{"error_rate < 1ms", `gate "error_rate < 1ms": col 15: unit "ms" does not apply to error_rate, ` +
			`want % or a plain ratio such as 0.01`},
		{"error_rate < 5", `gate "error_rate < 5": col 14: error_rate is a ratio from 0 to 1, got 5; ` +
			`write 5% for a percentage`},
		{"error_rate < 150%", `gate "error_rate < 150%": col 14: error_rate cannot exceed 100%, got 150%`},
		{"output_token_throughput > 5ms", `gate "output_token_throughput > 5ms": col 28: unit "ms" does not ` +
			`apply to output_token_throughput, want /s or no unit`},
		{"request_throughput > 5 req/s", `gate "request_throughput > 5 req/s": col 24: unknown unit "req/s", ` +
			`want /s or no unit`},
		{"osl.avg > 5ms", `gate "osl.avg > 5ms": col 12: unit "ms" does not apply to osl, want a plain number of tokens`},
		{"gpu_power < 5J", `gate "gpu_power < 5J": col 14: unit "J" does not apply to gpu_power, want W or no unit`},
		{"num_requests_waiting < 2%", `gate "num_requests_waiting < 2%": col 25: unit "%" does not apply to ` +
			`num_requests_waiting, want a plain number of requests`},
		{"kv_cache_usage < 90", `gate "kv_cache_usage < 90": col 18: kv_cache_usage is a ratio from 0 to 1, got 90; ` +
			`write 90% for a percentage`},
		// Per GPU.
		{"ttft.per_gpu < 5", `gate "ttft.per_gpu < 5": col 6: ttft is not measured per GPU; per_gpu applies to ` +
			`gpu_power and gpu_utilization`},
		{"gpu_power.per_gpu. < 5", `gate "gpu_power.per_gpu. < 5": col 19: want a statistic after "gpu_power.per_gpu.", ` +
			`such as avg or p99`},
		{"gpu_power.per_gpu.top < 5", `gate "gpu_power.per_gpu.top < 5": col 19: unknown statistic "top", want avg, ` +
			`min, max, std, median or a percentile such as p99 or p99.9`},
		{"gpu_power.max.per_gpu < 5", `gate "gpu_power.max.per_gpu < 5": col 11: unknown statistic "max.per_gpu", ` +
			`want avg, min, max, std, median or a percentile such as p99 or p99.9`},
		// Telemetry is measured for the whole point.
		{"gpu_power.p99 < 700W @ component=chat", `gate "gpu_power.p99 < 700W @ component=chat": col 24: gpu_power is ` +
			`measured from telemetry for the whole point, which has no value per dataset component; drop component=`},
		{"kv_cache_usage < 90% @ concurrency=8, component=rag", `gate "kv_cache_usage < 90% @ concurrency=8, ` +
			`component=rag": col 39: kv_cache_usage is measured from telemetry for the whole point, which has no ` +
			`value per dataset component; drop component=`},
		{"cost_per_mtok < $5", `gate "cost_per_mtok < $5": col 17: want a number or baseline, got "$5"`},
		{"cost_per_mtok < 5$", `gate "cost_per_mtok < 5$": col 18: unknown unit "$", ` +
			`want a plain number or the currency of cost_per_hour, such as 2.5 USD (cost per million output tokens)`},
		{"ttft < 5 USD", `gate "ttft < 5 USD": col 10: unit "USD" does not apply to ttft, want ms, s, us or ns`},
		// Baseline.
		{"ttft <= baseline * fast", `gate "ttft <= baseline * fast": col 20: want a factor after "baseline *", ` +
			`such as 1.1, got "fast"`},
		{"ttft <= baseline *", `gate "ttft <= baseline *": col 19: want a factor after "baseline *", ` +
			`such as 1.1, got end of gate`},
		{"ttft <= baseline * 1.1ms", `gate "ttft <= baseline * 1.1ms": col 23: a baseline factor takes no unit, got "ms"`},
		{"ttft <= baseline * 0", `gate "ttft <= baseline * 0": col 20: a baseline factor must be above 0, got 0`},
		{"ttft <= 0 * baseline", `gate "ttft <= 0 * baseline": col 9: a baseline factor must be above 0, got 0`},
		{"ttft == baseline", `gate "ttft == baseline": col 17: a baseline gate compares with <, <=, > or >= (judged with a confidence interval), got ==`},
		{"ttft <= 1.1 * basline", `gate "ttft <= 1.1 * basline": col 15: want baseline after "1.1 *", got "basline"`},
		{"ttft <= basline", `gate "ttft <= basline": col 9: want a number or baseline, got "basline"`},
		{"ttft <= baselines", `gate "ttft <= baselines": col 9: want a number or baseline, got "baselines"`},
		{"ttft <= baseline ms", `gate "ttft <= baseline ms": col 18: unexpected "ms", ` +
			`want "@" and point conditions or the end of the gate`},
		// Trailing text and conditions.
		{"ttft < 5 ms extra", `gate "ttft < 5 ms extra": col 13: unexpected "extra", ` +
			`want "@" and point conditions or the end of the gate`},
		{"ttft < 5 @", `gate "ttft < 5 @": col 11: want a condition such as concurrency=16 after "@", got end of gate`},
		{"ttft < 5 @ concurrency=16,", `gate "ttft < 5 @ concurrency=16,": col 27: ` +
			`want a condition such as concurrency=16 after ",", got end of gate`},
		{"ttft < 5 @ batch=4", `gate "ttft < 5 @ batch=4": col 12: unknown point parameter "batch", ` +
			`want concurrency, rate, input_tokens, output_tokens or component`},
		{"ttft < 5 @ concurrency 16", `gate "ttft < 5 @ concurrency 16": col 24: want "=" after concurrency, got "16"`},
		{"ttft < 5 @ concurrency=", `gate "ttft < 5 @ concurrency=": col 24: want a number for concurrency, got end of gate`},
		{"ttft < 5 @ concurrency=many", `gate "ttft < 5 @ concurrency=many": col 24: ` +
			`want a number for concurrency, got "many"`},
		{"ttft < 5 @ concurrency=16.5", `gate "ttft < 5 @ concurrency=16.5": col 24: ` +
			`concurrency must be a whole number, got 16.5`},
		{"ttft < 5 @ concurrency=16, concurrency=32", `gate "ttft < 5 @ concurrency=16, concurrency=32": col 28: ` +
			`concurrency is given twice`},
		{"ttft < 5 @ concurrency=16 rate=2", `gate "ttft < 5 @ concurrency=16 rate=2": col 27: ` +
			`unexpected "rate=2" after concurrency=16, want "," and another condition or the end of the gate`},
		{"ttft < 5 @ rate=10/s", `gate "ttft < 5 @ rate=10/s": col 19: ` +
			`unexpected "/s" after rate=10, want "," and another condition or the end of the gate`},
	}
	for _, c := range cases {
		g, err := ParseGate(c.in)
		if err == nil {
			t.Errorf("ParseGate(%q) = %+v, want error %s", c.in, g, c.want)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("ParseGate(%q) error\n got: %s\nwant: %s", c.in, err, c.want)
		}
		var ge *GateError
		if !errors.As(err, &ge) || ge.Gate != c.in || ge.Col < 1 || ge.Col > len(c.in)+1 {
			t.Errorf("ParseGate(%q) error %#v: want a *GateError on the gate with 1 <= Col <= %d", c.in, err, len(c.in)+1)
		}
	}
}

// gateTestSummary is a point's summary with hand-set statistics: times in
// ns, a 2% error rate, no TTST, goodput or schedule lag measured.
func gateTestSummary() *Summary {
	goodput := 7.5
	return &Summary{
		TimeToFirstToken: &Distribution{Count: 100, Avg: 300e6, Min: 100e6, Max: 900e6, Std: 50e6,
			P1: 110e6, P5: 120e6, P10: 130e6, P25: 200e6, P50: 290e6, P75: 350e6, P90: 450e6, P95: 520e6, P99: 612.3e6},
		InterTokenLatency:            &Distribution{Count: 100, Avg: 20e6, P90: 28e6, P99: 35e6},
		RequestLatency:               &Distribution{Count: 100, Avg: 2e9, P99: 3e9},
		TTFTFromSchedule:             &Distribution{Count: 100, Avg: 800e6, P99: 1.5e9},
		RequestLatencyFromSchedule:   &Distribution{Count: 100, Avg: 2.5e9, P99: 4e9},
		OutputTokenThroughputPerUser: &Distribution{Count: 100, Avg: 50, P10: 31},
		InputSequenceLength:          &Distribution{Count: 100, Avg: 300, Max: 412},
		OutputSequenceLength:         &Distribution{Count: 100, Avg: 100},
		ChunkGap:                     NewDistribution([]float64{1e6, 2e6, 3e6, 4e6, 5e6, 6e6, 7e6, 8e6, 9e6, 10e6}),
		OutputTokenThroughput:        1234.5,
		RequestThroughput:            9.25,
		RequestGoodput:               &goodput,
		Completed:                    98,
		Failed:                       2,
		ErrorRate:                    0.02,
	}
}

func mustParseGate(t *testing.T, s string) Gate {
	t.Helper()
	g, err := ParseGate(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGateMeasure(t *testing.T) {
	s := gateTestSummary()
	cases := []struct {
		gate string
		want float64
		pass bool
	}{
		{"ttft.p99 < 500ms", 612.3e6, false},
		{"ttft.p99 < 700ms", 612.3e6, true},
		{"ttft < 0.3s", 300e6, false},
		{"ttft <= 0.3s", 300e6, true},
		{"ttft.mean == 300", 300e6, true},
		{"ttft.median < 300", 290e6, true},
		{"ttft.min > 99.999ms", 100e6, true},
		{"ttft.max >= 1s", 900e6, false},
		{"ttft.std != 50", 50e6, false},
		{"ttft.p0 == 100", 100e6, true},
		{"ttft.p100 == 900", 900e6, true},
		{"ttft.p1 < 1", 110e6, false},
		{"ttft.p5 < 121", 120e6, true},
		{"ttft.p25 < 201", 200e6, true},
		{"ttft.p75 < 351", 350e6, true},
		{"ttft.p95 < 521", 520e6, true},
		{"itl.p90 < 30ms", 28e6, true},
		{"request_latency.p99 <= 3s", 3e9, true},
		{"output_token_throughput_per_user.p10 >= 30", 31, true},
		{"isl.max <= 4096", 412, true},
		{"osl > 99", 100, true},
		{"chunk_gap.p99.9 < 10ms", 9.991e6, true},
		{"chunk_gap.p50 == 5.5ms", 5.5e6, true},
		{"output_token_throughput >= 1000", 1234.5, true},
		{"output_token_throughput.avg >= 1500/s", 1234.5, false},
		{"request_throughput > 9.25", 9.25, false},
		{"request_goodput >= 7.5", 7.5, true},
		{"error_rate < 1%", 0.02, false},
		{"error_rate <= 0.02", 0.02, true},
		// From the schedule: the same kind of times, waiting to be sent included.
		{"ttft_from_schedule.p99 < 1s", 1.5e9, false},
		{"ttft_from_schedule < 900", 800e6, true},
		{"request_latency_from_schedule.p99 <= 4s", 4e9, true},
		{"request_latency_from_schedule > 2.5s", 2.5e9, false},
	}
	for _, c := range cases {
		g := mustParseGate(t, c.gate)
		got, err := g.Measure(s)
		if err != nil {
			t.Errorf("%q.Measure: %v", c.gate, err)
			continue
		}
		if math.Abs(got-c.want) > 1e-9*math.Abs(c.want) {
			t.Errorf("%q.Measure = %v, want %v", c.gate, got, c.want)
		}
		if pass := g.Check(got, math.NaN()); pass != c.pass {
			t.Errorf("%q.Check(%v) = %v, want %v", c.gate, got, pass, c.pass)
		}
	}
}

func TestGateMeasureNotMeasured(t *testing.T) {
	s := gateTestSummary()
	cases := []struct {
		gate    string
		summary *Summary
		want    string
	}{
		{"ttst.p99 < 5", s, "ttst.p99: not measured in this run"},
		{"ttfo < 5", s, "ttfo.avg: not measured in this run"},
		{"schedule_lag.p99 < 5", s, "schedule_lag.p99: not measured in this run"},
		{"ttft_from_schedule.p99 < 5", &Summary{}, "ttft_from_schedule.p99: not measured in this run"},
		{"request_latency_from_schedule < 5", &Summary{}, "request_latency_from_schedule.avg: not measured in this run"},
		{"request_goodput > 1", &Summary{}, "request_goodput: not measured in this run"},
		{"error_rate < 1%", &Summary{}, "error_rate: not measured in this run"},
		{"energy_per_token < 1", s, "energy_per_token: not measured in this run"},
		{"cost_per_mtok < 1", s, "cost_per_mtok: not measured in this run"},
		{"gpu_power.max < 700", s, "gpu_power.max: not measured in this run"},
		{"gpu_utilization > 50%", s, "gpu_utilization.avg: not measured in this run"},
		{"ttft.p99 < 5", nil, "ttft.p99: not measured in this run"},
	}
	for _, c := range cases {
		v, err := mustParseGate(t, c.gate).Measure(c.summary)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrNotMeasured) || !math.IsNaN(v) {
			t.Errorf("%q.Measure = %v, %v; want NaN, %q wrapping ErrNotMeasured", c.gate, v, err, c.want)
		}
	}

	// A percentile beyond the fixed ones needs the values, which a
	// hand-set (or decoded) distribution does not hold.
	_, err := mustParseGate(t, "ttft.p99.9 < 5").Measure(s)
	want := "ttft.p99.9: this summary kept only the fixed percentiles (p1 p5 p10 p25 p50 p75 p90 p95 p99), " +
		"not the values p99.9 needs"
	if err == nil || err.Error() != want || errors.Is(err, ErrNotMeasured) {
		t.Errorf("ttft.p99.9 on fixed percentiles: err = %v, want %q", err, want)
	}

	// Hand-built gates without a metric or with a bad statistic are errors too.
	for _, g := range []Gate{{Op: "<"}, {Metric: TTFT, Stat: "p101", Op: "<"}, {Metric: TTFT, Stat: "mode"}} {
		if _, err := g.Measure(s); err == nil {
			t.Errorf("%+v.Measure: no error", g)
		}
	}
	// An empty Stat on a distribution metric means the average.
	if v, err := (Gate{Metric: TTFT, Op: "<"}).Measure(s); err != nil || v != 300e6 {
		t.Errorf("ttft with no stat: %v, %v; want 3e8", v, err)
	}
}

func TestGateCheck(t *testing.T) {
	cases := []struct {
		gate               string
		measured, baseline float64
		want               bool
	}{
		{"ttft < 5", 4.99e6, 0, true},
		{"ttft < 5", 5e6, 0, false},
		{"ttft <= 5", 5e6, 0, true},
		{"ttft <= 5", 5.000001e6, 0, false},
		{"ttft > 5", 5e6, 0, false},
		{"ttft >= 5", 5e6, 0, true},
		{"ttft == 5", 5e6, 0, true},
		{"ttft != 5", 5e6, 0, false},
		{"ttft != 5", 6e6, 0, true},
		{"ttft < 5", math.NaN(), 0, false},
		{"ttft != 5", math.NaN(), 0, false},
		// Baselines: the limit is factor × baseline.
		{"ttft.p99 <= baseline * 1.10", 550e6, 500e6, true},
		{"ttft.p99 <= baseline * 1.10", 551e6, 500e6, false},
		{"ttft.p99 <= 1.1 * baseline", 549e6, 500e6, true},
		{"request_throughput >= baseline * 0.95", 9.5, 10, true},
		{"request_throughput >= baseline * 0.95", 9.4, 10, false},
		{"request_throughput >= baseline", 10, 10, true},
		{"ttft.p99 <= baseline", 1, math.NaN(), false},
	}
	for _, c := range cases {
		if got := mustParseGate(t, c.gate).Check(c.measured, c.baseline); got != c.want {
			t.Errorf("%q.Check(%v, %v) = %v, want %v", c.gate, c.measured, c.baseline, got, c.want)
		}
	}
	if (Gate{Metric: TTFT, Op: "=~"}).Check(1, 1) {
		t.Error("a gate with an unknown operator passed")
	}
}

func TestGateApplies(t *testing.T) {
	c16 := map[string]float64{"concurrency": 16}
	c16r := map[string]float64{"concurrency": 16, "input_tokens": 512}
	cases := []struct {
		gate   string
		params map[string]float64
		want   bool
	}{
		{"ttft < 5", nil, true},
		{"ttft < 5", c16, true},
		{"ttft < 5 @ concurrency=16", c16, true},
		{"ttft < 5 @ concurrency=16", map[string]float64{"concurrency": 8}, false},
		{"ttft < 5 @ concurrency=16", nil, false},
		{"ttft < 5 @ rate=16", c16, false},
		{"ttft < 5 @ concurrency=16, input_tokens=512", c16r, true},
		{"ttft < 5 @ concurrency=16, input_tokens=512", c16, false},
		{"ttft < 5 @ input_tokens=512, concurrency=16", c16r, true},
		{"ttft < 5 @ input_tokens=1024, concurrency=16", c16r, false},
		{"ttft < 5 @ rate=2.5", map[string]float64{"rate": 2.5}, true},
	}
	for _, c := range cases {
		if got := mustParseGate(t, c.gate).Applies(c.params); got != c.want {
			t.Errorf("%q.Applies(%v) = %v, want %v", c.gate, c.params, got, c.want)
		}
	}
}

func TestGateDescribe(t *testing.T) {
	cases := []struct {
		gate     string
		measured float64
		want     string
	}{
		{"ttft.p99 < 500ms", 612.3e6, "ttft.p99 = 612.30 ms, limit < 500 ms"},
		{"time_to_first_token.p99 < 0.5s @ concurrency=16", 612.3e6, "ttft.p99 = 612.30 ms, limit < 500 ms"},
		{"itl < 250us", 180e3, "itl.avg = 0.18 ms, limit < 0.25 ms"},
		{"itl < 1ns", 0, "itl.avg = 0.00 ms, limit < 0.000001 ms"},
		{"ttft < 1e25s", 0, "ttft.avg = 0.00 ms, limit < 1e+28 ms"},
		{"error_rate < 1%", 0.025, "error_rate = 2.50%, limit < 1%"},
		{"error_rate < 0.07", 0, "error_rate = 0.00%, limit < 7%"},
		{"output_token_throughput >= 1000", 1234.567, "output_token_throughput = 1234.57 tokens/s, limit >= 1000 tokens/s"},
		{"output_token_throughput_per_user.p10 >= 20/s", 31, "output_token_throughput_per_user.p10 = 31.00 tokens/s/user, " +
			"limit >= 20 tokens/s/user"},
		{"request_throughput > 1e6", 9.25, "request_throughput = 9.25 requests/s, limit > 1000000 requests/s"},
		{"request_goodput >= 7.5", 7.5, "request_goodput = 7.50 requests/s, limit >= 7.5 requests/s"},
		{"isl.max <= 4096", 412, "isl.max = 412.00 tokens, limit <= 4096 tokens"},
		{"energy_per_token < 0.3", 0.25, "energy_per_token = 0.25 J/token, limit < 0.3 J/token"},
		{"gpu_power.max < 700W", 650, "gpu_power.max = 650.00 W, limit < 700 W"},
		{"gpu_utilization > 80%", 0.9, "gpu_utilization.avg = 90.00%, limit > 80%"},
		{"gpu_power.per_gpu.max < 700W", 650, "gpu_power.per_gpu.max = 650.00 W, limit < 700 W"},
		{"kv_cache_usage.max < 90%", 0.875, "kv_cache_usage.max = 87.50%, limit < 90%"},
		{"num_requests_waiting.p99 <= 4", 3.5, "num_requests_waiting.p99 = 3.50 requests, limit <= 4 requests"},
		{"cost_per_mtok < 2.5", 1.2, "cost_per_mtok = 1.20 per Mtok, limit < 2.5 per Mtok"},
		{"cost_per_mtok < 2.5 USD", 1.2, "cost_per_mtok = 1.20 USD per Mtok, limit < 2.5 USD per Mtok"},
		{"ttft.p99 <= baseline * 1.10", 612.3e6, "ttft.p99 = 612.30 ms, limit <= baseline * 1.1"},
		{"request_throughput >= baseline", 9.25, "request_throughput = 9.25 requests/s, limit >= baseline"},
	}
	for _, c := range cases {
		if got := mustParseGate(t, c.gate).Describe(c.measured); got != c.want {
			t.Errorf("%q.Describe(%v)\n got: %s\nwant: %s", c.gate, c.measured, got, c.want)
		}
	}
}

func TestGateString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"ttft.p99 < 500ms @ concurrency=16", "ttft.p99 < 500ms @ concurrency=16"},
		{"time_to_first_token < 0.5 s", "ttft.avg < 500ms"},
		{"ttft.median<500", "ttft.p50 < 500ms"},
		{"itl.p99.90 < 250us", "itl.p99.9 < 0.25ms"},
		{"itl < 1ns", "itl.avg < 0.000001ms"},
		{"error_rate < 0.01", "error_rate < 1%"},
		{"error_rate.avg <= 0.07", "error_rate <= 7%"},
		{"request_throughput > 10/s", "request_throughput > 10"},
		{"ttft.p99 <= 1.10*baseline", "ttft.p99 <= baseline * 1.1"},
		{"request_throughput >= baseline*1", "request_throughput >= baseline"},
		{"osl >= 1e3 @ rate = 2.5 , output_tokens=128", "osl.avg >= 1000 @ rate=2.5, output_tokens=128"},
		{"gpu_power.per_gpu.max < 700W", "gpu_power.per_gpu.max < 700"},
		{"gpu_utilization.per_gpu>0.5", "gpu_utilization.per_gpu.avg > 50%"},
		{"kv_cache_usage.max<0.9", "kv_cache_usage.max < 90%"},
		{"ttft.p99<5 @ replica = 2,concurrency=4", "ttft.p99 < 5ms @ concurrency=4, replica=2"},
		{"cost_per_mtok<=2.5USD", "cost_per_mtok <= 2.5 USD"},
	}
	for _, c := range cases {
		g := mustParseGate(t, c.in)
		got := g.String()
		if got != c.want {
			t.Errorf("ParseGate(%q).String() = %q, want %q", c.in, got, c.want)
		}
		again := mustParseGate(t, got)
		if !sameGate(g, again) {
			t.Errorf("ParseGate(%q) = %+v, its String %q parses to %+v", c.in, g, got, again)
		}
	}
}

func TestGateErrorCol(t *testing.T) {
	// The column points at the offending byte, so a loader can add it to
	// the column of the string literal's first character.
	in := "ttft.p99 < 5xx"
	_, err := ParseGate(in)
	var ge *GateError
	if !errors.As(err, &ge) {
		t.Fatalf("ParseGate(%q) = %v, want a *GateError", in, err)
	}
	if !strings.HasPrefix(in[ge.Col-1:], "xx") {
		t.Errorf("Col %d points at %q, want the unit", ge.Col, in[ge.Col-1:])
	}
}

func FuzzParseGate(f *testing.F) {
	for _, s := range []string{
		"ttft.p99 < 500ms @ concurrency=16", "error_rate < 1%", "output_token_throughput >= 1000 @ concurrency=16",
		"itl.p90 < 30ms @ concurrency=16", "ttft.p99 <= baseline * 1.10", "1.1 * baseline", "ttft < 1e-300ns",
		"ttft.p99.999 < 1.5s @ rate=2.5, input_tokens=512", "error_rate <= 0.07", "gpu_utilization > 80%",
		"gpu_power.per_gpu.p99 < 700W", "kv_cache_usage.max < 90%", "num_requests_waiting <= 2 @ concurrency=8",
		"itl < 250µs", "request_throughput > 10/s", "ttft.p99 < 5xx", "ttft <= baseline*1.1 @ output_tokens=1",
		"time_to_first_token.median < .5", "ttft < 0.1ms", "error_rate < 0.333333333333%", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGate(s)
		if err != nil {
			var ge *GateError
			if !errors.As(err, &ge) || ge.Gate != s || ge.Col < 1 || ge.Col > len(s)+1 {
				t.Fatalf("ParseGate(%q) error %#v: want a *GateError with 1 <= Col <= len+1", s, err)
			}
			return
		}
		canon := g.String()
		again, err := ParseGate(canon)
		if err != nil {
			t.Fatalf("ParseGate(%q) = %+v; its String %q does not parse: %v", s, g, canon, err)
		}
		if !sameGate(g, again) {
			t.Fatalf("ParseGate(%q) = %+v; its String %q parses to %+v", s, g, canon, again)
		}
		if again.String() != canon {
			t.Fatalf("String is not stable: %q then %q", canon, again.String())
		}
		_ = g.Describe(1)
		_, _ = g.Measure(gateTestSummary())
	})
}

// TestGateStringRoundTripValues checks, over values of every magnitude in
// every unit, that the canonical form reads back to the same native value:
// the fuzzer rarely builds a valid gate, this builds nothing else.
func TestGateStringRoundTripValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	forms := []struct{ prefix, unit string }{
		{"ttft.p99 < ", "ms"}, {"ttft.p99 < ", "s"}, {"ttft.p99 < ", "us"}, {"ttft.p99 < ", "ns"},
		{"ttft.p99 < ", ""}, {"error_rate < ", "%"}, {"output_token_throughput > ", "/s"},
		{"isl.max < ", ""}, {"ttft.p99 <= baseline * ", ""},
	}
	for range 20000 {
		f := forms[rng.IntN(len(forms))]
		v := math.Pow(10, rng.Float64()*40-20) * rng.Float64()
		if strings.HasPrefix(f.prefix, "error_rate") {
			v = rng.Float64() * 100
		}
		in := f.prefix + strconv.FormatFloat(v, 'g', -1, 64) + f.unit
		g, err := ParseGate(in)
		if err != nil {
			if strings.Contains(in, "baseline") && v == 0 {
				continue
			}
			t.Fatalf("ParseGate(%q): %v", in, err)
		}
		again, err := ParseGate(g.String())
		if err != nil || !sameGate(g, again) {
			t.Fatalf("ParseGate(%q) = %+v; String %q parses to %+v, %v", in, g, g.String(), again, err)
		}
	}
}

// TestGateNeeds checks what a run must do to measure a gate's metric:
// the from-schedule latencies, like schedule_lag, need a planned send time.
func TestGateNeeds(t *testing.T) {
	cases := []struct {
		gate string
		want Need
	}{
		{"ttft.p99 < 500ms", NeedStreaming},
		{"request_latency.p99 < 2s", NeedNothing},
		{"schedule_lag.p99 < 5ms", NeedOpenLoop},
		{"ttft_from_schedule.p99 < 1s", NeedOpenLoop},
		{"request_latency_from_schedule.p99 < 3s", NeedOpenLoop},
	}
	for _, c := range cases {
		if got := mustParseGate(t, c.gate).Needs(); got != c.want {
			t.Errorf("%q.Needs() = %q, want %q", c.gate, got, c.want)
		}
	}
}

func ptrInt(n int) *int { return &n }
