package records

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// FuzzTelemetryLabels: any labels, as a /metrics page may send them (the
// text format quotes names with any character in them), are written into
// telemetry.parquet's labels column in a form that reads back the same,
// and any text in that column reads as labels or an error, never a panic.
func FuzzTelemetryLabels(f *testing.F) {
	for _, s := range [][4]string{{"gpu", "0", "le", "+Inf"}, {"model_name", `odd "name", with=signs`, "UUID", "GPU-1"},
		{"a=b", "v", "c,d", `"`}, {"", "", "x", "\\"}, {"π", "\xff", "n", "\n"}} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, n1, v1, n2, v2 string) {
		labels := []metrics.Label{{Name: n1, Value: v1}, {Name: n2, Value: v2}}
		text := encodeLabels(labels)
		got, err := decodeLabels(text)
		if err != nil || !reflect.DeepEqual(got, labels) {
			t.Fatalf("%q written as %s reads back as %q, %v", labels, text, got, err)
		}
		for _, s := range []string{n1, v1, n1 + "=" + v1, text[:len(text)/2]} {
			if ls, err := decodeLabels(s); err != nil && ls != nil {
				t.Fatalf("%q: labels %q and an error %v", s, ls, err)
			}
		}
	})
}

// FuzzReadTelemetry feeds telemetry.parquet's reader small files edited
// by the fuzzer (edited), or any bytes at all. It returns an error naming
// the file, or samples and an account that, written again, read back the
// same.
func FuzzReadTelemetry(f *testing.F) {
	bases := [][]byte{nil}
	for _, n := range []int{0, 1, 4} {
		var buf bytes.Buffer
		if err := WriteTelemetry(&buf, telemetrySamples()[:n], `{"sources":[]}`); err != nil {
			f.Fatal(err)
		}
		bases = append(bases, buf.Bytes())
	}
	addEdits(f, bases)
	f.Fuzz(func(t *testing.T, base uint8, at uint32, patch []byte, cut uint32) {
		data := edited(bases[int(base)%len(bases)], at, patch, cut)
		samples, account, err := ReadTelemetry(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if samples != nil || !strings.Contains(err.Error(), TelemetryFile) {
				t.Fatalf("%d samples and %v: want none and an error naming %s", len(samples), err, TelemetryFile)
			}
			return
		}
		var again bytes.Buffer
		if err := WriteTelemetry(&again, samples, account); err != nil {
			t.Fatalf("%d samples read back do not write: %v", len(samples), err)
		}
		got, gotAccount, err := ReadTelemetry(bytes.NewReader(again.Bytes()), int64(again.Len()))
		if err != nil || gotAccount != account || len(got) != len(samples) || len(got) > 0 && !reflect.DeepEqual(got, samples) {
			t.Fatalf("%d samples (account %q) written again read back as %d (%q), %v", len(samples), account, len(got), gotAccount, err)
		}
	})
}
