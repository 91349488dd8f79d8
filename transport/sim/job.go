package sim

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// job is one inference request moving through the simulated engine:
// queue for a slot, prefill, then one decode step per output token.
type job struct {
	srv     *Server
	ctx     context.Context
	w       http.ResponseWriter
	req     genRequest
	id      string
	created int64
	rng     *rand.Rand
	timer   *time.Timer
	fault   fault
	// abort cuts the connection for an injected reset; nil aborts the
	// HTTP connection of w.
	abort func()
	// faultAt is how many tokens go out before a mid-stream fault fires.
	faultAt int
	// reasoning is how many leading tokens are reasoning_content.
	reasoning int
	// cached is how many prompt tokens the prefix cache served, known
	// once prefill starts.
	cached int
	// next is when the latest event was due; delays add to it rather than
	// to the clock, so time spent writing does not slow the stream down.
	next time.Time
	// arrived, admitted, first and last time the job's phases for the
	// server's latency histograms: arrival, a batch slot, the first token
	// and the latest one.
	arrived, admitted, first, last time.Time
}

// outcome is how a job ended, for the server's counters.
type outcome int

const (
	outcomeDone outcome = iota
	outcomeCanceled
	outcomeReset
)

var idPrefix = [...]string{apiChat: "chatcmpl-", apiCompletions: "cmpl-", apiEmbeddings: "embd-",
	apiResponses: "resp_", apiMessages: "msg_", apiTGI: "tgi-", apiKServe: "kserve-", apiRankings: "rank-", apiTriton: "triton-",
	apiImageRetrieval: "infer-"}

// newJob draws the request's fault and fault position first, from a
// generator seeded by (Seed, seq), so faults depend on the request's place
// in the sequence and on nothing else; a forced fault overrides the draw.
func (s *Server) newJob(ctx context.Context, w http.ResponseWriter, seq uint64, req genRequest, forced fault, isForced bool) *job {
	j := &job{
		srv: s, ctx: ctx, w: w, req: req,
		id:      idPrefix[req.api] + strconv.FormatUint(seq, 10),
		created: time.Now().Unix(),
		rng:     rand.New(rand.NewPCG(uint64(s.cfg.Seed), seq)),
		arrived: time.Now(),
	}
	j.fault = s.cfg.pickFault(j.rng.Float64())
	if isForced {
		j.fault = forced
	}
	if req.outputTokens > 0 {
		j.faultAt = 1 + j.rng.IntN(req.outputTokens)
	}
	if s.cfg.Reasoning && (req.api == apiChat || req.api == apiResponses || req.api == apiMessages) {
		j.reasoning = s.cfg.ReasoningTokens
	}
	return j
}

// run takes a batch slot, prefills and decodes into out. The slot is given
// back however the job ends, including when the client goes away.
func (j *job) run(out sink) outcome {
	b := j.srv.batch
	if b.acquire(j.ctx) != nil {
		return outcomeCanceled
	}
	defer b.release()
	j.admitted = time.Now()
	cfg := &j.srv.cfg
	j.cached = j.srv.cachedTokens(&j.req)
	prefill := cfg.TTFT + time.Duration(j.req.promptTokens-j.cached)*cfg.PrefillPerToken
	j.next = time.Now().Add(j.delay(prefill))
	if !j.sleepUntil() {
		return outcomeCanceled
	}
	j.srv.stats.promptTokens.Add(int64(j.req.promptTokens))
	j.srv.stats.cachedTokens.Add(int64(j.cached))
	if j.req.outputTokens > 0 {
		b.decoding.Add(1)
		defer b.decoding.Add(-1)
	}
	if out.begin() != nil {
		return outcomeCanceled
	}
	return j.decode(out)
}

// decode emits the tokens one decode step apart; a mid-stream fault fires
// once faultAt tokens are out (right after prefill for embeddings).
func (j *job) decode(out sink) outcome {
	for i := 0; ; i++ {
		if i == j.faultAt && j.fault >= faultReset {
			if o, stop := j.inject(out); stop {
				return o
			}
		}
		if i == j.req.outputTokens {
			break
		}
		if i > 0 {
			// A step starts when the previous one really ended: a late
			// token delays the rest, as on a real engine, instead of
			// being followed by a burst that catches up.
			j.next = later(j.next, time.Now()).Add(j.delay(j.srv.itl()))
			if !j.sleepUntil() {
				return outcomeCanceled
			}
		}
		if out.token(tokenText[j.rng.IntN(len(tokenText))], i < j.reasoning) != nil {
			return outcomeCanceled
		}
		j.tokenOut(i)
		j.srv.stats.completionTokens.Add(1)
	}
	if out.finish() != nil {
		return outcomeCanceled
	}
	j.observe()
	return outcomeDone
}

// tokenOut times the i-th token for the histograms.
func (j *job) tokenOut(i int) {
	now := time.Now()
	if i == 0 {
		j.first = now
	} else {
		j.srv.latencies.itl.observe(now.Sub(j.last))
	}
	j.last = now
}

// observe books a finished job's phases, as vLLM books a finished
// request (queue and prefill from admission, decode after the first
// token, end to end from arrival).
func (j *job) observe() {
	l, end := j.srv.latencies, time.Now()
	if j.first.IsZero() { // no tokens (embeddings, max_tokens 0)
		j.first = end
	}
	l.queue.observe(j.admitted.Sub(j.arrived))
	l.ttft.observe(j.first.Sub(j.arrived))
	l.prefill.observe(j.first.Sub(j.admitted))
	l.decode.observe(end.Sub(j.first))
	l.e2e.observe(end.Sub(j.arrived))
}

// inject applies a mid-stream fault; stop says the job must end now.
func (j *job) inject(out sink) (o outcome, stop bool) {
	st := &j.srv.stats
	switch j.fault {
	case faultReset:
		st.resets.Add(1)
		if j.abort != nil {
			j.abort()
		} else {
			abortConnection(j.w)
		}
		return outcomeReset, true
	case faultMalformed:
		st.malformed.Add(1)
		if out.malformed() != nil {
			return outcomeCanceled, true
		}
	case faultStall:
		st.stalls.Add(1)
		j.next = j.next.Add(scale(j.srv.cfg.Stall, j.srv.speedNow()))
		if !j.sleepUntil() {
			return outcomeCanceled, true
		}
	}
	return outcomeDone, false
}

// delay is how long a step the engine plans as d really takes: d jittered
// within the run, then scaled by the start's drift factor. Prefill and
// decode steps pass through here; a stall is scaled without jitter; the
// queue is made of other requests' steps, so it drifts with them.
func (j *job) delay(d time.Duration) time.Duration {
	return scale(j.jitter(d), j.srv.speedNow())
}

// jitter scales d by a seeded factor in [1-Jitter, 1+Jitter].
func (j *job) jitter(d time.Duration) time.Duration {
	spread := j.srv.cfg.Jitter
	if spread == 0 || d <= 0 {
		return d
	}
	return time.Duration(float64(d) * (1 + spread*(2*j.rng.Float64()-1)))
}

// sleepUntil waits until j.next, or reports false when the client has gone
// or the server is closing. One timer serves the whole job.
func (j *job) sleepUntil() bool {
	d := time.Until(j.next)
	if d <= 0 {
		return j.ctx.Err() == nil
	}
	if j.timer == nil {
		j.timer = time.NewTimer(d)
	} else {
		j.timer.Reset(d)
	}
	select {
	case <-j.timer.C:
		return true
	case <-j.ctx.Done():
		j.timer.Stop()
		return false
	}
}

// itl is the current decode step time: ITL(b) = ITL + ITLPerSeq×(b−1) for
// b sequences decoding now, the calling one included.
func (s *Server) itl() time.Duration {
	b := s.batch.decoding.Load()
	return s.cfg.ITL + time.Duration(b-1)*s.cfg.ITLPerSeq
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
