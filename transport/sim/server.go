package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog/log"
	"google.golang.org/grpc"
)

// Server is a running simulator. It is safe for concurrent use.
type Server struct {
	cfg  Config
	url  string
	http *http.Server
	// grpc serves Triton's gRPC API on grpcURL when Config.GRPCAddr is
	// set; nil otherwise.
	grpc      *grpc.Server
	grpcURL   string
	batch     *batch
	stats     counters
	seq       atomic.Uint64
	started   int64
	modelJSON []byte
	table     map[string]route
	// gpuLabels and modelLabel are the fixed /metrics label sets.
	gpuLabels, modelLabel string
	// latencies are the engine's own latency histograms for /metrics.
	latencies *latencies
	// cache is the prefix cache, nil when Config.PrefixCacheBlocks is 0.
	cache *PrefixCache
	// speed is this start's drift factor (1 without drift): every delay
	// is multiplied by it.
	speed float64
	// born is when the server started: DriftWave's clock.
	born time.Time

	// ctx is every request's base context; Close cancels it so requests
	// parked in the queue or between tokens end at once.
	ctx    context.Context
	cancel context.CancelFunc
	// mu guards closed against handlers registering in inflight, so Close
	// can wait for every handler without racing a late one.
	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup
}

// Stats counts what the server did, so a test can reconcile the errors a
// client reports with the faults the server injected. Every inference
// request ends in exactly one of Completed, Canceled, BadRequest,
// NotFound, Status429, Status500 or Resets; Malformed and Stalls count injected
// faults on requests that then went on (usually to Completed).
type Stats struct {
	// Requests counts POSTs to the chat, completions and embeddings paths.
	Requests int64
	// Completed counts responses sent to their end ([DONE] or full body).
	Completed int64
	// Canceled counts requests abandoned because the client went away or
	// the server closed.
	Canceled int64
	// BadRequest counts 400 answers (invalid body or X-Sim-Fault, or a
	// request beyond ContextTokens under FlavorVLLM).
	BadRequest int64
	// NotFound counts 404 answers to an unknown model (StrictModel).
	NotFound int64
	// Status429 and Status500 count injected HTTP errors.
	Status429 int64
	Status500 int64
	// Resets counts connections reset mid-response.
	Resets int64
	// Malformed counts injected invalid events or bodies.
	Malformed int64
	// Stalls counts injected pauses.
	Stalls int64
	// PromptTokens counts the input tokens of prefilled requests.
	PromptTokens int64
	// CompletionTokens counts generated tokens, streamed or not.
	CompletionTokens int64
	// CachedTokens counts the prompt tokens of prefilled requests served
	// from the prefix cache (part of PromptTokens).
	CachedTokens int64
}

type counters struct {
	requests, completed, canceled, badRequest, notFound, status429, status500 atomic.Int64
	resets, malformed, stalls, promptTokens, completionTokens                 atomic.Int64
	cachedTokens                                                              atomic.Int64
}

// Start validates cfg, listens on cfg.Addr and serves in the background
// until Close.
func Start(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("sim: listen on %s: %w", cfg.Addr, err)
	}
	s := &Server{cfg: cfg, url: "http://" + ln.Addr().String(), batch: newBatch(cfg.MaxBatch),
		started: time.Now().Unix()}
	s.modelJSON, _ = json.Marshal(cfg.Model)
	s.speed, s.born = drawSpeed(cfg), time.Now()
	if w := cfg.DriftWave; w != (Wave{}) {
		log.Info().Str("drift", w.String()).Msg("simulator drift within the run: every delay made t after the start is multiplied by 1 + amplitude·sin(2πt/period)")
	}
	s.gpuLabels, s.modelLabel = metricLabels(cfg)
	s.latencies = newLatencies()
	if cfg.PrefixCacheBlocks > 0 {
		s.cache = cfg.SharedPrefixCache
		if s.cache == nil {
			s.cache = NewPrefixCache(cfg.PrefixCacheBlocks)
		}
	}
	s.table = s.routes()
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.http = &http.Server{
		Handler:           http.HandlerFunc(s.dispatch),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
	}
	// Serve returns only when Close closes the listener.
	go func() { _ = s.http.Serve(ln) }()
	if cfg.GRPCAddr != "" {
		if err := s.startGRPC(); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	return s, nil
}

// drawSpeed draws the start's drift factor and, when there is drift, logs
// it with its seed: a user comparing runs sees which start was slow, and
// can start one as slow again with DriftSeed.
func drawSpeed(cfg Config) float64 {
	if cfg.Drift == 0 {
		return 1
	}
	seed := cfg.driftSeed()
	factor := DriftFactor(cfg.Drift, seed)
	log.Info().Float64("drift", cfg.Drift).Int64("drift_seed", seed).Float64("factor", factor).
		Msg("simulator drift: every delay of this start is multiplied by factor")
	return factor
}

// Speed is the drift factor this start drew (1 without drift), by which
// every delay it makes is multiplied.
func (s *Server) Speed() float64 { return s.speed }

// URL is the base URL, "http://127.0.0.1:PORT"; the OpenAI base URL is
// URL()+"/v1".
func (s *Server) URL() string { return s.url }

// Close stops the server, cutting open streams, and returns once every
// handler has ended, so a test leaves no goroutine behind.
// Closing twice is harmless.
func (s *Server) Close() error {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if already {
		return nil
	}
	s.cancel()
	err := s.http.Close()
	if s.grpc != nil {
		s.grpc.Stop()
	}
	s.inflight.Wait()
	return err
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	c := &s.stats
	return Stats{
		Requests: c.requests.Load(), Completed: c.completed.Load(), Canceled: c.canceled.Load(),
		BadRequest: c.badRequest.Load(), NotFound: c.notFound.Load(), Status429: c.status429.Load(), Status500: c.status500.Load(),
		Resets: c.resets.Load(), Malformed: c.malformed.Load(), Stalls: c.stalls.Load(),
		PromptTokens: c.promptTokens.Load(), CompletionTokens: c.completionTokens.Load(),
		CachedTokens: c.cachedTokens.Load(),
	}
}

type route struct {
	method string
	handle http.HandlerFunc
}

// dispatch routes by exact path so unknown paths and wrong methods get
// JSON errors like the rest of the API.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		writeError(w, http.StatusServiceUnavailable, "service_unavailable", "sim: server is closing")
		return
	}
	defer s.inflight.Done()
	rt, ok := s.table[r.URL.Path]
	if !ok {
		rt, ok = s.kserveRoute(r)
	}
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, "not_found_error", "no route for "+r.URL.Path)
	case r.Method != rt.method:
		w.Header().Set("Allow", rt.method)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error",
			fmt.Sprintf("%s %s is not allowed; use %s", r.Method, r.URL.Path, rt.method))
	default:
		rt.handle(w, r)
	}
}

func (s *Server) routes() map[string]route {
	return map[string]route{
		"/v1/chat/completions": {http.MethodPost, s.inference(apiChat)},
		"/v1/completions":      {http.MethodPost, s.inference(apiCompletions)},
		"/v1/embeddings":       {http.MethodPost, s.inference(apiEmbeddings)},
		"/v1/ranking":          {http.MethodPost, s.inference(apiRankings)},
		"/v1/infer":            {http.MethodPost, s.inference(apiImageRetrieval)},
		"/v1/responses":        {http.MethodPost, s.inference(apiResponses)},
		"/v1/messages":         {http.MethodPost, s.inference(apiMessages)},
		"/generate":            {http.MethodPost, s.inference(apiTGI)},
		"/generate_stream":     {http.MethodPost, s.inference(apiTGI)},
		kserveKey:              {http.MethodPost, s.inference(apiKServe)},
		"/v1/models":           {http.MethodGet, s.serveModels},
		"/health":              {http.MethodGet, func(http.ResponseWriter, *http.Request) {}},
		"/metrics":             {http.MethodGet, s.serveMetrics},
		"/reset_prefix_cache":  {http.MethodPost, s.resetPrefixCache},
	}
}

// enter registers a handler unless the server is closing.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

func (s *Server) serveModels(w http.ResponseWriter, _ *http.Request) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", []model{{s.cfg.Model, "model", s.started, "llmbench"}}})
}

// speedNow is the factor a delay made now is multiplied by: the start's
// drift factor times the wave's value at this instant of the run.
func (s *Server) speedNow() float64 {
	if s.cfg.DriftWave == (Wave{}) {
		return s.speed
	}
	return s.speed * s.cfg.DriftWave.Factor(time.Since(s.born))
}
