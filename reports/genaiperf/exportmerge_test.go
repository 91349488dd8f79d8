package genaiperf

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// TestMergeProfileExportsIsTheUnionsExport: two shards' exports, each
// with completed, failed and warm-up requests, merge into exactly the
// export one writer makes of the union in completion order — entries,
// failures, window, header, byte for byte.
func TestMergeProfileExportsIsTheUnionsExport(t *testing.T) {
	r := exampleRun()
	_, payloads := exampleRecords()
	rec := func(id int64, sent, done int64, failed bool) metrics.Record {
		x := metrics.Record{ID: id, Entry: int(id % 2), Sent: sent, Chunks: []int64{sent + 3, done - 1}, ChunkEnds: []int32{1, 3},
			Output: "a b", Done: done}
		if failed {
			x.Err = &metrics.Failure{Class: metrics.ErrReset, Message: "connection reset by peer"}
		}
		return x
	}
	warm := rec(100, 1, 50, false)
	warm.Warmup = true
	shard0 := []metrics.Record{warm, rec(0, 10, 40, false), rec(2, 20, 70, true), rec(4, 30, 90, false)}
	shard1 := []metrics.Record{rec(1, 15, 45, false), rec(3, 25, 60, false), rec(5, 35, 80, true), rec(7, 5, 95, false)}
	union := []metrics.Record{shard0[0], shard0[1], shard1[0], shard1[1], shard0[2], shard1[2], shard0[3], shard1[3]}

	got, err := mergeExportTexts(t, writeProfileExport(t, r, shard0, payloads), writeProfileExport(t, r, shard1, payloads))
	if err != nil {
		t.Fatal(err)
	}
	if want := writeProfileExport(t, r, union, payloads); got != want {
		t.Errorf("merged export\n%s\nwant the union's\n%s", got, want)
	}
}

// TestMergeProfileExportsWithoutFailures: no "llmbench_failed_requests"
// key appears when no shard failed a request, and a shard that measured
// nothing adds nothing but its (empty) window.
func TestMergeProfileExportsWithoutFailures(t *testing.T) {
	r := exampleRun()
	recs, payloads := exampleRecords()
	got, err := mergeExportTexts(t, writeProfileExport(t, r, nil, payloads), writeProfileExport(t, r, recs, payloads))
	if err != nil {
		t.Fatal(err)
	}
	if want := writeProfileExport(t, r, recs, payloads); got != want {
		t.Errorf("merged export\n%s\nwant\n%s", got, want)
	}
}

// TestMergeProfileExportsRefusesATornFile: an export a kill cut short is
// an error naming it, not a silently shorter merge.
func TestMergeProfileExportsRefusesATornFile(t *testing.T) {
	r := exampleRun()
	recs, payloads := exampleRecords()
	whole := writeProfileExport(t, r, recs, payloads)
	_, err := mergeExportTexts(t, whole, whole[:len(whole)/2])
	if err == nil || !strings.Contains(err.Error(), "export-1.json") {
		t.Fatalf("merging a torn export: %v, want an error naming export-1.json", err)
	}
}

// mergeExportTexts writes each export to a file of its own (export-I.json)
// and merges them in that order.
func mergeExportTexts(t *testing.T, exports ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	paths := make([]string, len(exports))
	for i, text := range exports {
		paths[i] = filepath.Join(dir, fmt.Sprintf("export-%d.json", i))
		if err := os.WriteFile(paths[i], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got bytes.Buffer
	err := MergeProfileExports(&got, paths)
	return got.String(), err
}

// entryOrder reads a failed request's entry without responses, and
// refuses an entry whose times are not integers.
func TestEntryOrder(t *testing.T) {
	for _, tc := range []struct {
		entry      string
		sent, done int64
		ok         bool
	}{
		{`{"timestamp":5,"request_inputs":{"payload":"{\"timestamp\":9}"},"response_timestamps":[7,12,9],"response_outputs":[]}`, 5, 12, true},
		{`{"timestamp":5,"request_inputs":{},"response_timestamps":[],"response_outputs":[]}`, 5, 5, true},
		{`{"timestamp":5,"response_timestamps":[7,"x"]}`, 0, 0, false},
		{`{"request_inputs":{}}`, 0, 0, false},
	} {
		sent, done, err := entryOrder([]byte(tc.entry))
		if (err == nil) != tc.ok || sent != tc.sent || done != tc.done {
			t.Errorf("%s: %d, %d, %v; want %d, %d, ok %v", tc.entry, sent, done, err, tc.sent, tc.done, tc.ok)
		}
	}
}
