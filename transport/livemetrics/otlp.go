package livemetrics

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	otelmetric "go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/llmbench/llmbench/metrics"
)

// otlpTarget exports through the OpenTelemetry SDK: each run of a point
// records into its own meter provider (so a finished point's gauges are
// not sent again with the next point's, and a repeat's counters start
// from 0 as its Prometheus totals do), collected by hand at every sample and
// handed to the SDK's OTLP/HTTP exporter.
type otlpTarget struct {
	exp     *otlpmetrichttp.Exporter
	point   Labels
	started time.Time // the run the instruments count (a repeat is another)
	inst    *otlpInstruments
}

func newOTLP(ctx context.Context, url string) (*otlpTarget, error) {
	exp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(url))
	if err != nil {
		return nil, err
	}
	return &otlpTarget{exp: exp}, nil
}

// otlpInstruments are one point's meter provider and instruments.
type otlpInstruments struct {
	reader                         *sdkmetric.ManualReader
	provider                       *sdkmetric.MeterProvider
	requests, errors               otelmetric.Int64Counter
	requestRate, chunkRate         otelmetric.Float64Gauge
	intervalRequests, intervalErrs otelmetric.Int64Gauge
	ttft, itl                      otelmetric.Float64Gauge
}

func newInstruments() (*otlpInstruments, error) {
	reader := sdkmetric.NewManualReader()
	res := resource.NewSchemaless(attribute.String("service.name", "llmbench"))
	in := &otlpInstruments{reader: reader, provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res))}
	m := in.provider.Meter("github.com/llmbench/llmbench")
	var errs [8]error
	in.requests, errs[0] = m.Int64Counter("llmbench.requests", otelmetric.WithDescription("measured requests finished"))
	in.errors, errs[1] = m.Int64Counter("llmbench.errors", otelmetric.WithDescription("measured requests failed"))
	in.intervalRequests, errs[2] = m.Int64Gauge("llmbench.interval.requests", otelmetric.WithDescription("requests finished in the last interval"))
	in.intervalErrs, errs[3] = m.Int64Gauge("llmbench.interval.errors", otelmetric.WithDescription("requests failed in the last interval"))
	in.requestRate, errs[4] = m.Float64Gauge("llmbench.request_throughput", otelmetric.WithUnit("{request}/s"))
	in.chunkRate, errs[5] = m.Float64Gauge("llmbench.output_chunk_throughput", otelmetric.WithUnit("{chunk}/s"))
	in.ttft, errs[6] = m.Float64Gauge("llmbench.ttft", otelmetric.WithUnit("s"), otelmetric.WithDescription("time to first token quantile over the last interval"))
	in.itl, errs[7] = m.Float64Gauge("llmbench.itl", otelmetric.WithUnit("s"), otelmetric.WithDescription("inter-token latency quantile over the last interval"))
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return in, nil
}

func (o *otlpTarget) push(ctx context.Context, l Labels, s metrics.LiveSample) error {
	if o.inst == nil || l != o.point || !s.Started.Equal(o.started) {
		if o.inst != nil {
			_ = o.inst.provider.Shutdown(ctx)
		}
		in, err := newInstruments()
		if err != nil {
			return err
		}
		o.inst, o.point, o.started = in, l, s.Started
	}
	in := o.inst
	attrs := otelmetric.WithAttributes(attribute.String("experiment", l.Experiment), attribute.String("point", l.Point))
	in.requests.Add(ctx, s.Requests, attrs)
	in.errors.Add(ctx, s.Errors, attrs)
	in.intervalRequests.Record(ctx, s.Requests, attrs)
	in.intervalErrs.Record(ctx, s.Errors, attrs)
	in.requestRate.Record(ctx, s.RequestThroughput, attrs)
	in.chunkRate.Record(ctx, s.OutputChunkThroughput, attrs)
	for _, q := range []struct {
		g otelmetric.Float64Gauge
		v *metrics.LiveQuantiles
	}{{in.ttft, s.TTFT}, {in.itl, s.ITL}} {
		if q.v == nil {
			continue
		}
		for _, p := range []struct {
			q string
			v float64
		}{{"0.5", q.v.P50}, {"0.9", q.v.P90}, {"0.99", q.v.P99}} {
			q.g.Record(ctx, p.v, otelmetric.WithAttributes(attribute.String("experiment", l.Experiment),
				attribute.String("point", l.Point), attribute.String("quantile", p.q)))
		}
	}
	var rm metricdata.ResourceMetrics
	if err := in.reader.Collect(ctx, &rm); err != nil {
		return err
	}
	return o.exp.Export(ctx, &rm)
}

func (o *otlpTarget) close(ctx context.Context) error {
	if o.inst != nil {
		_ = o.inst.provider.Shutdown(ctx)
	}
	return o.exp.Shutdown(ctx)
}
