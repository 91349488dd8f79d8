package genaiperf

import (
	"bufio"
	"fmt"
	"io"
	"slices"

	"github.com/llmbench/llmbench/metrics"
)

// WriteProfileExport writes perf_analyzer's raw profile_export.json: compact
// JSON (rapidjson's Writer) with top-level keys "experiments", "version",
// "service_kind", "endpoint", one experiment holding every measured request.
// GenAI-Perf's `process-export-files` and other tools that parse PA output
// recompute metrics from it, and `llmbench report` imports it.
//
// records are the measured requests (warmup excluded), written in the
// given order; payloads are the request bodies, indexed by Record.Entry,
// and are written verbatim as each request's "payload" string. The output
// is streamed, so memory does not grow with the number of requests.
//
// llmbench keeps no raw SSE bytes, so every response is synthesized from
// the record (see responses): one event per content chunk at the chunk's
// arrival time, with the chunk's exact text. A failed request — which
// would have aborted perf_analyzer — is not in "requests", so a GenAI-Perf
// reader recomputes exactly llmbench's metrics; failures go to the
// experiment's extra "llmbench_failed_requests" list, present only when
// something failed (GenAI-Perf ignores it), each with the chunks it did receive and an "error": {"class",
// "status", "message"} key. window_boundaries is [first request sent, last
// response done].
func WriteProfileExport(w io.Writer, r *Run, records []metrics.Record, payloads [][]byte) error {
	bw := bufio.NewWriter(w)
	e := encoder{style: rapidCompact}
	e.buf = append(e.buf, `{"experiments":[{"experiment":`...)
	e.encode(experiment(r.Stimulus), 0)
	completed := func(rec *metrics.Record) bool { return rec.Err == nil }
	failed := func(rec *metrics.Record) bool { return rec.Err != nil }
	if err := writeRequests(&e, bw, `,"requests":[`, r, records, payloads, completed); err != nil {
		return err
	}
	if slices.ContainsFunc(records, func(rec metrics.Record) bool { return rec.Err != nil }) {
		if err := writeRequests(&e, bw, `],"llmbench_failed_requests":[`, r, records, payloads, failed); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, `],"window_boundaries":`...)
	e.encode(windowBoundaries(records), 0)
	e.buf = append(e.buf, `}],"version":`...)
	e.encode(r.Version, 0)
	e.buf = append(e.buf, `,"service_kind":`...)
	e.encode(r.serviceKind(), 0)
	e.buf = append(e.buf, `,"endpoint":`...)
	e.encode(r.endpointPath(), 0)
	e.buf = append(e.buf, '}')
	if e.err != nil {
		return e.err
	}
	if _, err := bw.Write(e.buf); err != nil {
		return err
	}
	return bw.Flush()
}

// writeRequests appends the key opening and the records that keep,
// flushing the buffer as it grows so memory stays flat.
func writeRequests(e *encoder, bw *bufio.Writer, open string, r *Run, records []metrics.Record,
	payloads [][]byte, keep func(*metrics.Record) bool) error {
	e.buf = append(e.buf, open...)
	n := 0
	for i := range records {
		if !keep(&records[i]) {
			continue
		}
		req, err := requestEntry(r, &records[i], payloads)
		if err != nil {
			return err
		}
		if n > 0 {
			e.buf = append(e.buf, ',')
		}
		n++
		e.encode(req, 0)
		if len(e.buf) >= 64<<10 {
			if _, err := bw.Write(e.buf); err != nil {
				return err
			}
			e.buf = e.buf[:0]
		}
	}
	return nil
}

// experiment is perf_analyzer's experiment key: the concurrency as an
// integer, or the request rate as a double ("10.0"), which is how
// GenAI-Perf finds the stats of a point ("request_rate", "10.0").
func experiment(st Stimulus) *object {
	if st.Mode() == "request_rate" {
		return (&object{}).set("mode", "request_rate").set("value", st.RequestRate)
	}
	return (&object{}).set("mode", "concurrency").set("value", st.concurrency())
}

// requestEntry is one element of "requests".
func requestEntry(r *Run, rec *metrics.Record, payloads [][]byte) (*object, error) {
	if rec.Entry < 0 || rec.Entry >= len(payloads) {
		return nil, fmt.Errorf("genaiperf: request %d uses dataset entry %d, but only %d payloads were given",
			rec.ID, rec.Entry, len(payloads))
	}
	stamps, outputs := responses(r, rec)
	o := (&object{}).
		set("timestamp", rec.Sent).
		set("request_inputs", (&object{}).set("payload", string(payloads[rec.Entry]))).
		set("response_timestamps", stamps).
		set("response_outputs", outputs)
	if rec.Err != nil {
		o.set("error", (&object{}).
			set("class", string(rec.Err.Class)).
			set("status", rec.Err.Status).
			set("message", rec.Err.Message))
	}
	return o, nil
}

// windowBoundaries spans the requests: earliest send to latest end.
func windowBoundaries(records []metrics.Record) []any {
	if len(records) == 0 {
		return []any{}
	}
	first, last := records[0].Sent, records[0].Done
	for i := range records {
		first = min(first, records[i].Sent)
		last = max(last, records[i].Done)
	}
	return []any{first, last}
}
