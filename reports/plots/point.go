package plots

import (
	"gonum.org/v1/plot"

	"github.com/llmbench/llmbench/metrics"
)

// The per-point file names are GenAI-Perf's plot stems (its plots/config.yaml
// titles, lowercased with spaces as underscores) with .png, so anyone who
// scripted against GenAI-Perf's plot folder finds the same names.
const (
	FileTTFT      = "time_to_first_token.png"
	FileLatency   = "request_latency.png"
	FileTTFTvsISL = "time_to_first_token_vs_input_sequence_lengths.png"
	FileITLvsPos  = "token-to-token_latency_vs_output_token_position.png"
	FileISLvsOSL  = "distribution_of_input_sequence_lengths_to_output_sequence_lengths.png"
)

// pointData is what the per-point plots draw, derived once from the
// records: only completed requests with content, times in ms.
type pointData struct {
	ttft, latency []float64
	// isl pairs with ttft: isl[i] is the input length of the request
	// whose TTFT is ttft[i].
	isl, osl []float64
	// gaps[k] holds every request's k-th chunk gap (between chunk k and
	// k+1), so position k+1 is the output chunk the gap ended at.
	gaps [][]float64
	// tokens is true when some request has token counts (ISL/OSL plots
	// need them; a run without a tokenizer may have none).
	tokens bool
}

// collect derives every completed request's metrics. Failed requests are
// left out, as they are from every statistic: a timeout's latency is the
// timeout, not the server's.
func collect(recs []metrics.Record) *pointData {
	d := &pointData{}
	for i := range recs {
		if !recs[i].Completed() {
			continue
		}
		m := metrics.Derive(&recs[i])
		if !m.HasContent {
			continue
		}
		d.ttft = append(d.ttft, ms(m.TTFT))
		d.latency = append(d.latency, ms(m.Latency))
		d.isl = append(d.isl, float64(m.ISL))
		d.osl = append(d.osl, float64(m.OSL))
		d.tokens = d.tokens || m.ISL > 0 || m.OSL > 0
		for k, g := range m.ChunkGaps {
			if k == len(d.gaps) {
				d.gaps = append(d.gaps, nil)
			}
			d.gaps[k] = append(d.gaps[k], ms(g))
		}
	}
	return d
}

// WritePointPlots writes the five per-point plots of SPEC §7 into dir
// (created if missing) and returns the paths written. title names the
// point (e.g. "llama-3 · concurrency 16") and heads every plot. A plot
// whose data is absent is skipped, not an error: no completed request
// skips all five, a run without chunk gaps (non-streaming) skips ITL vs
// position, a run without token counts skips the ISL/OSL plots.
func WritePointPlots(dir string, title string, recs []metrics.Record) ([]string, error) {
	d := collect(recs)
	if len(d.ttft) == 0 {
		return nil, nil
	}
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	builders := []struct {
		file  string
		build func(*pointData, string) (*plot.Plot, error)
	}{
		{FileTTFT, ttftHist},
		{FileLatency, latencyHist},
		{FileTTFTvsISL, ttftVsISL},
		{FileITLvsPos, itlVsPosition},
		{FileISLvsOSL, islOSLHeatMap},
	}
	var paths []string
	for _, b := range builders {
		p, err := b.build(d, title)
		if err != nil {
			return paths, err
		}
		if p == nil {
			continue
		}
		path, err := save(p, dir, b.file)
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// withTitle heads a plot with what it shows and which point it is.
func withTitle(what, title string) string {
	if title == "" {
		return what
	}
	return what + "\n" + title
}
