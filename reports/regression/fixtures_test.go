package regression

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	runplan "github.com/llmbench/llmbench/runtime/plan"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/transport"
)

// stored is one experiment of a stored run as the fixtures write it: its
// model, its points' concurrencies and how slow its server was (TTFT
// and every gap scaled by slow).
type stored struct {
	experiment, model string
	concurrency       []float64
	slow              float64
}

// writeRun writes a run folder as `llmbench run` leaves it — a
// records.parquet per point, its saved plan and run description in the
// footer — from records made here, so no server is started, and returns
// the folder.
func writeRun(t *testing.T, exps ...stored) string {
	t.Helper()
	out := t.TempDir()
	for _, s := range exps {
		exp := &runplan.Experiment{Name: s.experiment, Requests: 200, Load: runplan.Load{Concurrency: 1}, Seed: 1,
			Endpoint: runplan.Endpoint{URL: "http://127.0.0.1:1", Model: s.model, API: transport.Chat, Stream: true}}
		for i, c := range s.concurrency {
			params := runplan.Params{metrics.ParamConcurrency: c}
			writePoint(t, filepath.Join(out, s.experiment, params.Label()), exp, params, i, requests(200, s.slow))
		}
	}
	return out
}

// writePoint writes one point's records.parquet into dir.
func writePoint(t *testing.T, dir string, exp *runplan.Experiment, params runplan.Params, index int, recs []metrics.Record) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run := genaiperf.DefaultRun(exp.Endpoint.Model)
	run.Subcommand, run.Streaming, run.TokenCounting = "run", true, "usage"
	config, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	rec := runtime.RecordOf("s", exp, runtime.PointKey{Experiment: exp.Name, Params: params, Repeat: 1}, index)
	rec.Counting = runtime.Counting{Mode: runtime.ByUsage}
	plan, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "records.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	meta := records.Meta{Scenario: "s", Experiment: exp.Name, Point: params.Label(), Repeat: 1, Model: exp.Endpoint.Model,
		API: "chat", Stream: true, Config: string(config), PointRecord: plan}
	w, err := records.NewWriterOptions(f, meta, records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs...); err != nil {
		t.Fatal(err)
	}
	w.Finish("usage", string(config))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// requests are n streamed requests one after another, TTFT about 20 ms
// and 8 gaps of about 5 ms, each scaled by slow; the same n and slow give
// the same requests.
func requests(n int, slow float64) []metrics.Record {
	rng := rand.New(rand.NewPCG(11, uint64(n)))
	recs := make([]metrics.Record, n)
	at := int64(0)
	for i := range recs {
		t := at + int64((20+rng.NormFloat64())*slow*1e6)
		chunks := []int64{t}
		for range 8 {
			t += int64((5 + rng.NormFloat64()*0.2) * slow * 1e6)
			chunks = append(chunks, t)
		}
		recs[i] = metrics.Record{ID: int64(i), Sent: at, Chunks: chunks, Done: t, InputTokens: 20, OutputTokens: 9}
		at = t
	}
	return recs
}

// load reads a stored run as `llmbench compare` does.
func load(t *testing.T, path string) *storedrun.Run {
	t.Helper()
	s, err := storedrun.Load(path, storedrun.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
