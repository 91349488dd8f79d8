package plots

import (
	"math/rand/v2"
	"os"
	"path/filepath"

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
	// FileFromSchedule is llmbench's own: TTFT from the actual send and
	// from the planned one over the run, drawn for open-loop points only.
	FileFromSchedule = "time_to_first_token_from_schedule.png"
	// FileTTFTvsTurn is llmbench's own too: TTFT by turn index of a
	// conversation point, the cost of resending the history.
	FileTTFTvsTurn = "time_to_first_token_vs_turn.png"
)

// Sample sizes past which PointData keeps a uniform random sample of the
// requests instead of all of them, so a run of millions of requests plots
// in bounded memory: up to sampleRequests requests for the distributions,
// the scatter and the heat map, and the chunk gaps of up to sampleGaps of
// them for ITL vs position (one value per token, hence the smaller cap).
const (
	sampleRequests = 100_000
	sampleGaps     = 2_000
)

// PointData is what the per-point plots draw, taken from records as they
// finish: only completed requests with content, times in ms. Failed
// requests are left out, as they are from every statistic: a timeout's
// latency is the timeout, not the server's.
type PointData struct {
	// Seen counts the completed requests with content offered to Add.
	Seen int

	ttft, latency []float64
	// isl pairs with ttft: isl[i] is the input length of the request
	// whose TTFT is ttft[i].
	isl, osl []float64
	// turn pairs with ttft: the request's 1-based turn index in its
	// conversation, 0 outside one.
	turn  []float64
	turns bool
	// gaps[k] holds the sampled requests' k-th chunk gap (between chunk k
	// and k+1), so position k+1 is the output chunk the gap ended at.
	gaps [][]float64
	// gapRequests holds each gap-sampled request's gaps, for replacement,
	// out of gapSeen requests that had gaps.
	gapRequests [][]float64
	gapSeen     int
	// tokens is true when some request has token counts (ISL/OSL plots
	// need them; a run without a tokenizer may have none).
	tokens bool
	// planned pairs with ttft in open-loop runs: the request's planned
	// send instant (ns) and its TTFT from it (ms); nil in a closed loop.
	planned, fromSchedule []float64
	rng                   *rand.Rand
}

// NewPointData starts an empty collection; its sampling is seeded, so the
// same records always draw the same plots.
func NewPointData() *PointData {
	return &PointData{rng: rand.New(rand.NewPCG(1, 2))}
}

// Add takes one finished record; it keeps no reference to it.
func (d *PointData) Add(r *metrics.Record) {
	if !r.Completed() || len(r.Chunks) == 0 {
		return
	}
	m := r.Metrics()
	d.Seen++
	d.tokens = d.tokens || m.ISL > 0 || m.OSL > 0
	// Reservoir sampling (Algorithm R): request n replaces a random
	// sampled one with probability cap/n.
	if i := d.slot(sampleRequests, d.Seen); i >= 0 {
		if i == len(d.ttft) {
			d.ttft, d.latency, d.isl, d.osl = append(d.ttft, 0), append(d.latency, 0), append(d.isl, 0), append(d.osl, 0)
			d.turn = append(d.turn, 0)
		}
		d.ttft[i], d.latency[i] = metrics.TTFT.Display(float64(m.TTFT)), metrics.RequestLatency.Display(float64(m.Latency))
		d.isl[i], d.osl[i] = metrics.ISL.Display(float64(m.ISL)), metrics.OSL.Display(float64(m.OSL))
		d.turn[i], d.turns = float64(r.Turn), d.turns || r.Turn > 0
		d.keepSchedule(i, r, m)
	}
	if r.GapCount() == 0 {
		return
	}
	d.gapSeen++
	if i := d.slot(sampleGaps, d.gapSeen); i >= 0 {
		gaps := make([]float64, 0, r.GapCount())
		for g := range r.ChunkGaps() {
			gaps = append(gaps, metrics.ChunkGap.Display(float64(g)))
		}
		if i == len(d.gapRequests) {
			d.gapRequests = append(d.gapRequests, gaps)
		} else {
			d.gapRequests[i] = gaps
		}
	}
}

// slot is where the seen-th candidate goes in a sample of size limit: the
// next free index while the sample is filling, then a random index with
// probability limit/seen, else -1.
func (d *PointData) slot(limit, seen int) int {
	if seen <= limit {
		return seen - 1
	}
	if j := d.rng.IntN(seen); j < limit {
		return j
	}
	return -1
}

// positionGaps regroups the sampled requests' gaps by output position.
func (d *PointData) positionGaps() [][]float64 {
	var byPos [][]float64
	for _, gaps := range d.gapRequests {
		for k, g := range gaps {
			if k == len(byPos) {
				byPos = append(byPos, nil)
			}
			byPos[k] = append(byPos[k], g)
		}
	}
	return byPos
}

// RenderPointPlots draws the five per-point plots of SPEC §7 in memory,
// named by the File constants. title names the point (e.g. "llama-3 ·
// concurrency 16") and heads every plot. A plot whose data is absent is
// skipped, not an error: no completed request skips all five, a run
// without chunk gaps (non-streaming) skips ITL vs position, a run without
// token counts skips the ISL/OSL plots.
func RenderPointPlots(title string, d *PointData) ([]Image, error) {
	if len(d.ttft) == 0 {
		return nil, nil
	}
	d.gaps = d.positionGaps()
	set := make([]namedPlot, len(pointPlots))
	for i, b := range pointPlots {
		set[i] = namedPlot{b.file, func() (*plot.Plot, error) { return b.build(d, title) }}
	}
	return renderAll(set)
}

// pointPlots are the per-point plots in the order they are drawn, shown
// and listed (PointFiles).
var pointPlots = []struct {
	file  string
	build func(*PointData, string) (*plot.Plot, error)
}{
	{FileTTFT, ttftHist},
	{FileLatency, latencyHist},
	{FileTTFTvsISL, ttftVsISL},
	{FileITLvsPos, itlVsPosition},
	{FileISLvsOSL, islOSLHeatMap},
	{FileFromSchedule, ttftFromSchedule},
	{FileTTFTvsTurn, ttftVsTurn},
}

// PointFiles lists the per-point plots present in dir, in the order
// RenderPointPlots draws them.
func PointFiles(dir string) []string {
	var paths []string
	for _, p := range pointPlots {
		path := filepath.Join(dir, p.file)
		if _, err := os.Stat(path); err == nil {
			paths = append(paths, path)
		}
	}
	return paths
}

// withTitle heads a plot with what it shows and which point it is.
func withTitle(what, title string) string {
	if title == "" {
		return what
	}
	return what + "\n" + title
}
