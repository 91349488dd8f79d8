package records

import (
	"bytes"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/parquet-go/parquet-go"
)

// Each row of telemetry.parquet says whether its source served the
// simulator's made-up metrics, so a query over the file cannot take them
// for measurements; a file written before the column existed still reads.
func TestTelemetrySimulatedColumn(t *testing.T) {
	gpu := []metrics.Label{{Name: "UUID", Value: "GPU-0"}, {Name: "gpu", Value: "0"}}
	samples := []metrics.TelemetrySample{
		{Time: 1, Source: "sim:8000", Name: metrics.SimulatedMarker, Value: 1},
		{Time: 1, Source: "sim:8000", Name: "DCGM_FI_DEV_POWER_USAGE", Labels: gpu, Value: 70},
		{Time: 2, Source: "real:9400", Name: "DCGM_FI_DEV_POWER_USAGE", Labels: gpu, Value: 250},
	}
	var b bytes.Buffer
	if err := WriteTelemetry(&b, samples, ""); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[telemetryRow](bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, false} {
		if rows[i].Simulated != want {
			t.Errorf("row %d (%s %s): simulated %v, want %v", i, rows[i].Source, rows[i].Metric, rows[i].Simulated, want)
		}
	}

	type before struct { // telemetry.parquet's columns before "simulated"
		TimeNs int64   `parquet:"time_ns,timestamp(nanosecond)"`
		Source string  `parquet:"source,dict"`
		Metric string  `parquet:"metric,dict"`
		Value  float64 `parquet:"value"`
		Labels string  `parquet:"labels"`
	}
	var old bytes.Buffer
	if err := parquet.Write(&old, []before{{TimeNs: 5, Source: "h:9400", Metric: "DCGM_FI_DEV_POWER_USAGE", Value: 300, Labels: `gpu="0"`}}); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadTelemetry(bytes.NewReader(old.Bytes()), int64(old.Len()))
	if err != nil || len(got) != 1 || got[0].Value != 300 || got[0].Label("gpu") != "0" {
		t.Errorf("a file without the column: %+v, %v", got, err)
	}
}
