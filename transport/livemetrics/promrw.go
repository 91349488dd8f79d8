package livemetrics

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"

	"github.com/klauspost/compress/snappy"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/llmbench/llmbench/metrics"
)

// series is one sample of one time series: its name, labels and value.
type series struct {
	name   string
	labels [][2]string
	value  float64
}

// promSeries are a sample's series as Prometheus names them: counters
// _total, times in seconds with a quantile label, as client libraries'
// summaries do.
func promSeries(l Labels, s metrics.LiveSample) []series {
	base := [][2]string{{"experiment", l.Experiment}, {"point", l.Point}}
	out := []series{
		{"llmbench_requests_total", base, float64(s.TotalRequests)},
		{"llmbench_errors_total", base, float64(s.TotalErrors)},
		{"llmbench_interval_requests", base, float64(s.Requests)},
		{"llmbench_interval_errors", base, float64(s.Errors)},
		{"llmbench_request_throughput", base, s.RequestThroughput},
		{"llmbench_output_chunk_throughput", base, s.OutputChunkThroughput},
	}
	for _, q := range []struct {
		name string
		v    *metrics.LiveQuantiles
	}{{"llmbench_ttft_seconds", s.TTFT}, {"llmbench_itl_seconds", s.ITL}} {
		if q.v == nil {
			continue
		}
		for _, p := range []struct {
			q string
			v float64
		}{{"0.5", q.v.P50}, {"0.9", q.v.P90}, {"0.99", q.v.P99}} {
			out = append(out, series{q.name, append(slices.Clone(base), [2]string{"quantile", p.q}), p.v})
		}
	}
	return out
}

// encodeWriteRequest is remote write 1.0's WriteRequest (prompb):
// timeseries = 1 {labels = 1 {name = 1, value = 2}, samples = 2 {value =
// 1 (double), timestamp = 2 (int64 ms)}}, labels sorted by name with
// __name__ among them.
func encodeWriteRequest(ss []series, ms int64) []byte {
	var req []byte
	for _, s := range ss {
		labels := append([][2]string{{"__name__", s.name}}, s.labels...)
		slices.SortFunc(labels, func(a, b [2]string) int {
			switch {
			case a[0] < b[0]:
				return -1
			case a[0] > b[0]:
				return 1
			}
			return 0
		})
		var ts []byte
		for _, l := range labels {
			var lb []byte
			lb = protowire.AppendTag(lb, 1, protowire.BytesType)
			lb = protowire.AppendString(lb, l[0])
			lb = protowire.AppendTag(lb, 2, protowire.BytesType)
			lb = protowire.AppendString(lb, l[1])
			ts = protowire.AppendTag(ts, 1, protowire.BytesType)
			ts = protowire.AppendBytes(ts, lb)
		}
		var sample []byte
		sample = protowire.AppendTag(sample, 1, protowire.Fixed64Type)
		sample = protowire.AppendFixed64(sample, math.Float64bits(s.value))
		sample = protowire.AppendTag(sample, 2, protowire.VarintType)
		sample = protowire.AppendVarint(sample, uint64(ms))
		ts = protowire.AppendTag(ts, 2, protowire.BytesType)
		ts = protowire.AppendBytes(ts, sample)
		req = protowire.AppendTag(req, 1, protowire.BytesType)
		req = protowire.AppendBytes(req, ts)
	}
	return req
}

// promRW posts samples to a remote-write receiver.
type promRW struct {
	url    string
	client *http.Client
}

func (p *promRW) push(ctx context.Context, l Labels, s metrics.LiveSample) error {
	body := snappy.Encode(nil, encodeWriteRequest(promSeries(l, s), s.At.UnixMilli()))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	req.Header.Set("User-Agent", "llmbench")
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("HTTP %s: %s", strconv.Itoa(resp.StatusCode), bytes.TrimSpace(msg))
	}
	return nil
}
