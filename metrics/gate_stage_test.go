package metrics

import "testing"

func TestParseStageGate(t *testing.T) {
	for _, c := range []struct{ src, stage, canonical string }{
		{"ttft.p99 < 300ms @ stage=hold", "hold", "ttft.p99 < 300ms @ stage=hold"},
		{"error_rate < 1% @ stage = 2", "2", "error_rate < 1% @ stage=2"},
		{"ttft < 5 @ component=chat, stage=ramp-down", "ramp-down", "ttft.avg < 5ms @ component=chat, stage=ramp-down"},
	} {
		g, err := ParseGate(c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if g.Stage != c.stage || g.String() != c.canonical {
			t.Errorf("%s: stage %q, canonical %q; want %q, %q", c.src, g.Stage, g.String(), c.stage, c.canonical)
		}
		if back, err := ParseGate(g.String()); err != nil || back.Stage != g.Stage {
			t.Errorf("%s: canonical form does not read back: %v", c.src, err)
		}
	}
	for _, c := range []struct{ src, msg string }{
		{"ttft < 5 @ stage=", `gate "ttft < 5 @ stage=": col 18: want a stage's name or index (0, 1, ...) after stage=, got end of gate`},
		{"ttft < 5 @ stage=0, stage=1", `gate "ttft < 5 @ stage=0, stage=1": col 21: stage is given twice`},
		{"ttft < 5 @ stage 1", `gate "ttft < 5 @ stage 1": col 18: want "=" after stage, got "1"`},
		{"ttft.p99 <= baseline @ stage=1", `gate "ttft.p99 <= baseline @ stage=1": col 24: a baseline gate compares whole points; drop stage=`},
		{"gpu_power < 700W @ stage=0", `gate "gpu_power < 700W @ stage=0": col 20: gpu_power is measured from telemetry for the whole point, which has no value per stage; drop stage=`},
	} {
		_, err := ParseGate(c.src)
		if err == nil || err.Error() != c.msg {
			t.Errorf("%s:\n got %v\nwant %s", c.src, err, c.msg)
		}
	}
}
