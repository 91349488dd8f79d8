package records

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

func telemetrySamples() []metrics.TelemetrySample {
	gpu := []metrics.Label{{Name: "Hostname", Value: "node-1"}, {Name: "UUID", Value: "GPU-1"}, {Name: "gpu", Value: "0"}}
	return []metrics.TelemetrySample{
		{Time: 1_700_000_000_000_000_000, Source: "10.0.0.1:9400", Name: "DCGM_FI_DEV_POWER_USAGE", Labels: gpu, Value: 312.5},
		{Time: 1_700_000_000_330_000_000, Source: "10.0.0.1:9400", Name: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", Labels: gpu, Value: 1.5e9},
		{Time: 1_700_000_000_330_000_000, Source: "10.0.0.2:8000", Name: "vllm:time_to_first_token_seconds_bucket",
			Labels: []metrics.Label{{Name: "le", Value: "+Inf"}, {Name: "model_name", Value: `odd "name", with=signs`}}, Value: 42},
		{Time: 1_700_000_000_660_000_000, Source: "10.0.0.2:8000", Name: "vllm:num_requests_running", Value: 3},
	}
}

// What is written reads back sample for sample, labels with quotes,
// commas and equals signs included.
func TestTelemetryRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	want := telemetrySamples()
	if err := WriteTelemetry(&buf, want, `{"sources":[]}`); err != nil {
		t.Fatal(err)
	}
	got, account, err := ReadTelemetry(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if account != `{"sources":[]}` {
		t.Errorf("account %q", account)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
}

// Rows of one series read back sharing one labels slice and one metric
// string, as the scraper's samples do, so a long point read back by
// report or merge is not its labels again per row.
func TestReadTelemetrySharesASeries(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTelemetry(&buf, telemetrySamples(), ""); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadTelemetry(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if &got[0].Labels[0] != &got[1].Labels[0] {
		t.Error("two rows of one GPU's labels read back as two copies")
	}
	if &got[0].Labels[0] == &got[2].Labels[0] || len(got[0].Labels) != cap(got[0].Labels) {
		t.Errorf("labels shared across label sets, or not capped at their length (%d of %d)", len(got[0].Labels), cap(got[0].Labels))
	}
}

// pyarrow, an independent reader, sees SPEC §8's columns.
func TestTelemetryReadableByPyarrow(t *testing.T) {
	py := needPyarrow(t)
	path := filepath.Join(t.TempDir(), TelemetryFile)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTelemetry(f, telemetrySamples(), ""); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := runPython(t, py, `
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
print(",".join(t.column_names))
print(t.num_rows, t.column("host")[0].as_py(), t.column("gpu")[0].as_py(), t.column("metric")[0].as_py(), t.column("value")[0].as_py())
`, path)
	if got := strings.TrimSpace(string(out)); got != "time_ns,source,host,gpu,metric,value,labels,simulated\n4 node-1 0 DCGM_FI_DEV_POWER_USAGE 312.5" {
		t.Errorf("pyarrow read:\n%s", got)
	}
}
