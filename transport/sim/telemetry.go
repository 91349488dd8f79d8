package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// The simulated GPU is an H100 SXM serving an 8B model. Its readings are
// functions of batch occupancy (running / MaxBatch) so that telemetry
// moves with the load a sweep applies.
const (
	gpuModelName = "NVIDIA H100 80GB HBM3"
	gpuHostname  = "llmbench-sim"
	powerLimitW  = 700.0
	idlePowerW   = 70.0
	// activePowerW is the draw with one sequence decoding: every decode
	// step streams all the weights whatever the batch, so most of the
	// power is paid by the first sequence, and energy per token falls as
	// the batch fills.
	activePowerW = 250.0
	fullPowerW   = 620.0
	fbTotalMiB   = 81559.0
	weightsMiB   = 16 * 1024.0
	kvPoolMiB    = 56 * 1024.0
	smClockIdle  = 345.0
	smClockMax   = 1980.0
	tempIdleC    = 32.0
	tempFullC    = 74.0
)

// gpuPower is the draw in watts with running of size slots busy.
func gpuPower(running, size int) float64 {
	if running == 0 {
		return idlePowerW
	}
	return activePowerW + (fullPowerW-activePowerW)*occupancy(running, size)
}

func occupancy(running, size int) float64 {
	return float64(running) / float64(size)
}

// gpuUUID is stable for a seed, so repeated runs key the GPU the same way.
func gpuUUID(seed int64) string {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6770755f75756964))
	return fmt.Sprintf("GPU-%08x-%04x-%04x-%04x-%012x",
		r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint64()&0xffffffffffff)
}

// promText builds Prometheus text exposition lines.
type promText struct {
	bytes.Buffer
}

func (p *promText) sample(name, typ, help, labels string, v float64) {
	fmt.Fprintf(p, "# HELP %s %s\n# TYPE %s %s\n%s{%s} %s\n",
		name, help, name, typ, name, labels, strconv.FormatFloat(v, 'f', -1, 64))
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// serveMetrics answers like a DCGM exporter and a vLLM server sharing one
// endpoint, so one scrape URL exercises both halves of the telemetry path.
// The page opens with metrics.SimulatedMarker: its numbers are made up,
// and a scraper must be able to tell them from a real exporter's.
func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	st := s.batch.state()
	var p promText
	fmt.Fprintf(&p, "# HELP %[1]s 1: every metric on this page is made up by llmbench's simulator, none is measured.\n# TYPE %[1]s gauge\n%[1]s 1\n",
		metrics.SimulatedMarker)
	s.writeDCGM(&p, st)
	s.writeVLLM(&p, st)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write(p.Bytes())
}

func (s *Server) writeDCGM(p *promText, st batchState) {
	occ := occupancy(st.running, s.cfg.MaxBatch)
	power := gpuPower(st.running, s.cfg.MaxBatch)
	util, clock := 0.0, smClockIdle
	if st.running > 0 {
		util, clock = 60+40*occ, smClockMax-200*occ
	}
	heat := (power - idlePowerW) / (fullPowerW - idlePowerW)
	l := s.gpuLabels
	p.sample("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", l, power)
	p.sample("DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power management limit (in W).", l, powerLimitW)
	p.sample("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
		"Total energy consumption since boot (in mJ).", l, float64(int64(st.joules*1000)))
	p.sample("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", l, float64(int(util)))
	p.sample("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", l, float64(int(weightsMiB+kvPoolMiB*occ)))
	p.sample("DCGM_FI_DEV_FB_TOTAL", "gauge", "Framebuffer memory total (in MiB).", l, fbTotalMiB)
	p.sample("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", l, float64(int(clock)))
	p.sample("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", l, float64(int(tempIdleC+(tempFullC-tempIdleC)*heat)))
}

// writeVLLM reports the engine's own view: queue, KV cache, token
// counters, finish reasons and the latency histograms. Every prompt token is a prefix-cache query;
// prefix_cache_hits_total counts those the prefix cache served (0 without
// one, Config.PrefixCacheBlocks). The preemption counter stays 0, there
// so scrapers find the series.
func (s *Server) writeVLLM(p *promText, st batchState) {
	l := s.modelLabel
	p.sample("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", l, float64(st.running))
	p.sample("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", l, float64(st.waiting))
	p.sample("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", l, occupancy(st.running, s.cfg.MaxBatch))
	p.sample("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.", l,
		float64(s.stats.promptTokens.Load()))
	p.sample("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.", l,
		float64(s.stats.cachedTokens.Load()))
	p.sample("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.", l, 0)
	p.sample("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", l, float64(s.stats.promptTokens.Load()))
	p.sample("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.", l, float64(s.stats.completionTokens.Load()))
	p.sample("vllm:prompt_tokens_cached_total", "counter", "Number of cached prompt tokens (local + external).", l,
		float64(s.stats.cachedTokens.Load()))
	s.writeFinishReasons(p, l)
	s.latencies.write(p, l)
}

// writeFinishReasons writes vLLM's finished-request counter, one series
// per reason as vLLM 0.32 exposes it: every completed response stopped at
// its token limit ("length": the simulator never ends a text on its
// own), none for the other reasons.
func (s *Server) writeFinishReasons(p *promText, l string) {
	const name = "vllm:request_success_total"
	fmt.Fprintf(p, "# HELP %s Count of successfully processed requests.\n# TYPE %s counter\n", name, name)
	for _, r := range []struct {
		reason string
		n      int64
	}{{"stop", 0}, {"length", s.stats.completed.Load()}, {"abort", 0}} {
		fmt.Fprintf(p, "%s{%s,finished_reason=%q} %d\n", name, l, r.reason, r.n)
	}
}

// metricLabels builds the fixed label sets once per server.
func metricLabels(cfg Config) (gpu, model string) {
	gpu = fmt.Sprintf(`gpu="0",UUID="%s",device="nvidia0",modelName="%s",Hostname="%s"`,
		gpuUUID(cfg.Seed), gpuModelName, gpuHostname)
	model = `model_name="` + labelEscaper.Replace(cfg.Model) + `"`
	return gpu, model
}
