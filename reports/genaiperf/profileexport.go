package genaiperf

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/llmbench/llmbench/metrics"
)

// ProfileExportWriter streams perf_analyzer's raw profile_export.json:
// compact JSON (rapidjson's Writer) with top-level keys "experiments",
// "version", "service_kind", "endpoint", one experiment holding every
// measured request. GenAI-Perf's `process-export-files` and other tools
// that parse PA output recompute metrics from it, and `llmbench report`
// imports it.
//
// Records are written in the order given (a run gives them as they
// finish, the order its summary is computed in); payloads are the request
// bodies, indexed by Record.Entry, written verbatim as each request's
// "payload" string. Nothing is kept per request, so memory does not grow
// with the number of requests.
//
// llmbench keeps no raw SSE bytes, so every response is synthesized from
// the record, in one pass (profileentry.go): one event per content chunk
// at the chunk's arrival time, with the chunk's exact text. A failed request — which
// would have aborted perf_analyzer — is not in "requests", so a GenAI-Perf
// reader recomputes exactly llmbench's metrics; failures go to the
// experiment's extra "llmbench_failed_requests" list, present only when
// something failed (GenAI-Perf ignores it), each with the chunks it did
// receive and an "error": {"class", "status", "message"} key. As that list
// comes after "requests", failures wait in a temporary file until Close.
// window_boundaries is [first request sent, last response done].
//
// An auto point's records come unflagged, as they finish, and its
// warm-up — the first records written — is known only when it ends: Hold
// keeps their entries in a temporary file until Cut leaves the warm-up
// out (heldentries.go).
type ProfileExportWriter struct {
	out       *bufio.Writer
	e         encoder
	one       []byte // a held or failed entry, before it goes where it belongs
	r         *Run
	payloads  [][]byte
	completed int
	spillDir  string
	failed    *os.File // created at the first failure
	failedN   int
	held      *heldEntries // set by Hold until Cut
	window    [2]int64     // first sent, last done
	closed    bool
}

// NewProfileExportWriter starts an export on w; failures wait in a
// temporary file in spillDir ("" for the system's).
func NewProfileExportWriter(w io.Writer, spillDir string, r *Run, payloads [][]byte) *ProfileExportWriter {
	p := &ProfileExportWriter{out: bufio.NewWriterSize(w, 64<<10), e: encoder{style: rapidCompact},
		r: r, payloads: payloads, spillDir: spillDir}
	p.e.buf = append(p.e.buf, `{"experiments":[{"experiment":`...)
	p.e.encode(experiment(r.Stimulus), 0)
	p.e.buf = append(p.e.buf, `,"requests":[`...)
	return p
}

// WriteProfileExport writes a whole export of records at once.
func WriteProfileExport(w io.Writer, r *Run, records []metrics.Record, payloads [][]byte) error {
	p := NewProfileExportWriter(w, "", r, payloads)
	if err := p.Write(records...); err != nil {
		p.abandon()
		return err
	}
	return p.Close()
}

// Write appends records to the export.
func (p *ProfileExportWriter) Write(recs ...metrics.Record) error {
	for i := range recs {
		if err := p.write(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (p *ProfileExportWriter) write(rec *metrics.Record) error {
	if rec.Warmup { // GenAI-Perf's export holds no warm-up request
		return nil
	}
	if rec.Entry < 0 || rec.Entry >= len(p.payloads) {
		return fmt.Errorf("genaiperf: request %d uses dataset entry %d, but only %d payloads were given",
			rec.ID, rec.Entry, len(p.payloads))
	}
	payload := p.payloads[rec.Entry]
	e := exported{failed: rec.Err != nil, sent: rec.Sent, done: rec.Done}
	if p.held == nil && !e.failed { // the common case: straight into the export
		mark := len(p.e.buf)
		buf, err := appendEntry(appendComma(p.e.buf, p.completed), p.r, rec, payload)
		if err != nil {
			p.e.buf = buf[:mark] // nothing of a request that could not be written
			return err
		}
		p.e.buf = buf
		p.widen(e)
		p.completed++
		return p.drain(64 << 10)
	}
	entry, err := appendEntry(p.one[:0], p.r, rec, payload)
	p.one = entry
	if err != nil {
		return err
	}
	if p.held != nil {
		return p.held.add(p.spillDir, entry, e)
	}
	return p.put(entry, e)
}

// exported is what the export needs of a request besides its encoded
// entry.
type exported struct {
	failed     bool
	sent, done int64
}

// put appends one encoded entry: to "requests", or, failed, to the
// temporary file of failures.
func (p *ProfileExportWriter) put(entry []byte, e exported) error {
	p.widen(e)
	if e.failed {
		return p.spill(entry)
	}
	if p.completed > 0 {
		p.e.buf = append(p.e.buf, ',')
	}
	p.completed++
	p.e.buf = append(p.e.buf, entry...)
	return p.drain(64 << 10)
}

// widen takes a written request into window_boundaries.
func (p *ProfileExportWriter) widen(e exported) {
	if p.completed+p.failedN == 0 {
		p.window = [2]int64{e.sent, e.done}
	}
	p.window = [2]int64{min(p.window[0], e.sent), max(p.window[1], e.done)}
}

// spill appends a failed request's entry to the temporary file.
func (p *ProfileExportWriter) spill(entry []byte) error {
	if p.failed == nil {
		f, err := os.CreateTemp(p.spillDir, "profile_export.failed-*.json")
		if err != nil {
			return err
		}
		p.failed = f
	}
	if p.failedN > 0 {
		if _, err := p.failed.Write([]byte{','}); err != nil {
			return err
		}
	}
	p.failedN++
	_, err := p.failed.Write(entry)
	return err
}

// drain writes the encoded bytes out once they reach limit.
func (p *ProfileExportWriter) drain(limit int) error {
	if p.e.err != nil {
		return p.e.err
	}
	if len(p.e.buf) < limit {
		return nil
	}
	_, err := p.out.Write(p.e.buf)
	p.e.buf = p.e.buf[:0]
	return err
}

// Close appends the failures, the window and the trailer, and flushes. It
// does not close the underlying io.Writer. Entries still held (Hold
// without Cut) are all written: nothing measured is dropped unasked.
func (p *ProfileExportWriter) Close() error {
	if p.closed {
		return nil
	}
	defer p.abandon()
	if err := p.Cut(0); err != nil {
		return err
	}
	p.closed = true
	if p.failed != nil {
		p.e.buf = append(p.e.buf, `],"llmbench_failed_requests":[`...)
		if err := p.drain(0); err != nil {
			return err
		}
		if _, err := p.failed.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.Copy(p.out, p.failed); err != nil {
			return err
		}
	}
	p.e.buf = append(p.e.buf, `],"window_boundaries":`...)
	if p.completed+p.failedN == 0 {
		p.e.encode([]any{}, 0)
	} else {
		p.e.encode([]any{p.window[0], p.window[1]}, 0)
	}
	p.e.buf = append(p.e.buf, `}],"version":`...)
	p.e.encode(p.r.Version, 0)
	p.e.buf = append(p.e.buf, `,"service_kind":`...)
	p.e.encode(p.r.serviceKind(), 0)
	p.e.buf = append(p.e.buf, `,"endpoint":`...)
	p.e.encode(p.r.endpointPath(), 0)
	p.e.buf = append(p.e.buf, '}')
	if err := p.drain(0); err != nil {
		return err
	}
	return p.out.Flush()
}

// abandon removes the temporary files of failures and held entries.
func (p *ProfileExportWriter) abandon() {
	p.held.remove()
	p.held = nil
	if p.failed != nil {
		p.failed.Close()
		os.Remove(p.failed.Name())
		p.failed = nil
	}
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
