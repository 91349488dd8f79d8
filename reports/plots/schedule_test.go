package plots

import (
	"slices"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// record is a completed streamed request planned at planned (ns), sent
// late by lag and answered 20 ms after its send.
func scheduledRecord(id int64, planned, lag int64) metrics.Record {
	sent := planned + lag
	return metrics.Record{ID: id, Scheduled: planned, Sent: sent, Chunks: []int64{sent + 20e6, sent + 30e6}, Done: sent + 30e6,
		OutputTokens: 2}
}

// The from-schedule plot is drawn for an open loop (with the TTFT from
// the plan growing as the client falls behind) and not for a closed loop.
func TestTTFTFromSchedulePlot(t *testing.T) {
	open := NewPointData()
	for i := range int64(50) {
		r := scheduledRecord(i, i*10e6, i*5e6) // falls 5 ms further behind each request
		open.Add(&r)
	}
	imgs, err := RenderPointPlots("open", open)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(imgs, func(im Image) bool { return im.Name == FileFromSchedule }) {
		t.Errorf("no %s among %d plots", FileFromSchedule, len(imgs))
	}
	closed := NewPointData()
	for i := range int64(50) {
		r := scheduledRecord(i, i*10e6, 0)
		r.Scheduled = 0
		closed.Add(&r)
	}
	imgs, err = RenderPointPlots("closed", closed)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(imgs, func(im Image) bool { return im.Name == FileFromSchedule }) {
		t.Error("a closed loop drew the from-schedule plot")
	}
}
