package sim

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/llmbench/llmbench/transport/tritonpb"
)

// faultMetadata is FaultHeader as gRPC metadata, for tests that need a
// fault on cue on a gRPC request.
const faultMetadata = "x-sim-fault"

// ModelInfer answers one request whole, as Triton does for a request
// sent without streaming.
func (t *tritonServer) ModelInfer(ctx context.Context, r *tritonpb.ModelInferRequest) (*tritonpb.ModelInferResponse, error) {
	if !t.s.enter() {
		return nil, status.Error(codes.Unavailable, "sim: server is closing")
	}
	defer t.s.inflight.Done()
	ctx, stop := t.s.jobContext(ctx)
	defer stop()
	j, refused := t.admit(ctx, r, func() {})
	if refused != nil {
		return nil, refused.Err()
	}
	var out *tritonpb.ModelInferResponse
	sink := newTritonSink(j, r, true, func(resp *tritonpb.ModelInferResponse) error { out = resp; return nil })
	switch o := j.run(sink); {
	case o == outcomeReset:
		return nil, status.Error(codes.Unavailable, errReset)
	case o == outcomeCanceled:
		t.s.count(o)
		return nil, status.Error(codes.Canceled, "sim: request abandoned")
	default:
		t.s.count(o)
	}
	return out, nil
}

// errReset is the status message of a stream the sim cut mid-answer.
const errReset = "sim: stream reset mid-answer"

// ModelStreamInfer answers every request sent on the stream, each as its
// own job (so requests on one stream run at once, as Triton's do), with
// one response per token and a last response marked triton_final_response.
// An injected reset ends the whole stream abnormally (status Unavailable,
// what a client sees when the server's connection dies), cutting only the
// requests on that stream, not the others sharing the HTTP/2 connection.
func (t *tritonServer) ModelStreamInfer(stream tritonpb.GRPCInferenceService_ModelStreamInferServer) error {
	if !t.s.enter() {
		return status.Error(codes.Unavailable, "sim: server is closing")
	}
	defer t.s.inflight.Done()
	ctx, stop := t.s.jobContext(stream.Context())
	defer stop()
	st := &simStream{stream: stream, cut: make(chan struct{}), stop: stop}
	received := make(chan error, 1)
	go func() { // Recv in its own goroutine, so a reset need not wait for the client
		for {
			r, err := stream.Recv()
			if err != nil {
				received <- err
				return
			}
			if !st.start(func() { t.streamOne(ctx, r, st) }) {
				return
			}
		}
	}()
	select {
	case err := <-received:
		st.end()
		if errors.Is(err, io.EOF) {
			err = nil
		}
		if st.wasCut() {
			return status.Error(codes.Unavailable, errReset)
		}
		return err
	case <-st.cut:
		st.end()
		return status.Error(codes.Unavailable, errReset)
	}
}

// simStream is one ModelStreamInfer stream's shared state: sends are
// serialized, jobs are started until the stream ends, and a reset cuts it.
type simStream struct {
	stream tritonpb.GRPCInferenceService_ModelStreamInferServer
	mu     sync.Mutex // guards sends, ended and the start of jobs
	ended  bool
	jobs   sync.WaitGroup
	cut    chan struct{}
	once   sync.Once
	stop   func()
}

func (s *simStream) send(m *tritonpb.ModelStreamInferResponse) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stream.Send(m)
}

// start runs job unless the stream has ended.
func (s *simStream) start(job func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	s.jobs.Go(job)
	return true
}

// end starts no more jobs and waits for the running ones.
func (s *simStream) end() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	s.jobs.Wait()
}

// reset cuts the stream: its jobs stop and the handler fails it.
func (s *simStream) reset() {
	s.once.Do(func() {
		close(s.cut)
		s.stop()
	})
}

func (s *simStream) wasCut() bool {
	select {
	case <-s.cut:
		return true
	default:
		return false
	}
}

// streamOne runs one request of a stream; a refusal is the stream's
// error_message, as Triton reports a failed request on a stream.
func (t *tritonServer) streamOne(ctx context.Context, r *tritonpb.ModelInferRequest, st *simStream) {
	send := st.send
	j, refused := t.admit(ctx, r, st.reset)
	if refused != nil {
		_ = send(&tritonpb.ModelStreamInferResponse{ErrorMessage: refused.Message(),
			InferResponse: &tritonpb.ModelInferResponse{ModelName: r.GetModelName(), Id: r.GetId()}})
		return
	}
	emit := func(resp *tritonpb.ModelInferResponse) error {
		return send(&tritonpb.ModelStreamInferResponse{InferResponse: resp})
	}
	if o := j.run(newTritonSink(j, r, false, emit)); o != outcomeReset {
		t.s.count(o)
	}
}

// admit decodes and checks a request and draws its fault, as the HTTP
// inference handler does; a refused request (bad input, unknown model
// under StrictModel, an injected 429 or 500) gets a status instead of a
// job. An injected reset calls abort.
func (t *tritonServer) admit(ctx context.Context, r *tritonpb.ModelInferRequest, abort func()) (*job, *status.Status) {
	s := t.s
	s.stats.requests.Add(1)
	seq := s.seq.Add(1)
	req, err := tritonGenRequest(r, s.cfg.DefaultOutputTokens)
	forced, isForced, ferr := parseFaultHeader(firstMetadata(ctx, faultMetadata))
	if err == nil {
		err = ferr
	}
	if err == nil && s.cfg.StrictModel && req.model != s.cfg.Model {
		s.stats.notFound.Add(1)
		return nil, status.New(codes.NotFound, "Request for unknown model: '"+req.model+"' is not found")
	}
	if err == nil {
		err = s.fitContext(&req)
	}
	if err != nil {
		s.stats.badRequest.Add(1)
		return nil, status.New(codes.InvalidArgument, err.Error())
	}
	j := s.newJob(ctx, nil, seq, req, forced, isForced)
	j.abort = abort
	switch j.fault {
	case fault429:
		s.stats.status429.Add(1)
		return nil, status.New(codes.ResourceExhausted, "sim: injected rate limit")
	case fault500:
		s.stats.status500.Add(1)
		return nil, status.New(codes.Internal, "sim: injected server error")
	}
	return j, nil
}

// firstMetadata is the first value of an incoming metadata key.
func firstMetadata(ctx context.Context, key string) string {
	if v := metadata.ValueFromIncomingContext(ctx, key); len(v) > 0 {
		return v[0]
	}
	return ""
}

// jobContext ends with the request's own context or when the server
// closes, whichever comes first.
func (s *Server) jobContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	unhook := context.AfterFunc(s.ctx, cancel)
	return ctx, func() { unhook(); cancel() }
}

// tritonSink answers a job as Triton does: streamed, one response per
// token with the new piece in text_output, then an empty response marked
// triton_final_response when the request asked for one
// (triton_enable_empty_final_response), else the last token's response
// carries the mark; not streamed, one response with the whole text.
type tritonSink struct {
	j          *job
	id         string
	unary      bool // ModelInfer: a plain response, no final mark
	stream     bool
	emptyFinal bool
	shape      []int64
	n          int
	text       []byte
	broken     bool
	emit       func(*tritonpb.ModelInferResponse) error
}

func newTritonSink(j *job, r *tritonpb.ModelInferRequest, unary bool, emit func(*tritonpb.ModelInferResponse) error) *tritonSink {
	k := &tritonSink{j: j, id: r.GetId(), unary: unary, stream: j.req.stream && !unary, emit: emit, shape: []int64{1}}
	k.emptyFinal = r.GetParameters()["triton_enable_empty_final_response"].GetBoolParam()
	if in := r.GetInputs(); len(in) > 0 && len(in[0].GetShape()) == 2 {
		k.shape = []int64{1, 1} // a batching model answers [batch, 1]
	}
	return k
}

func (k *tritonSink) begin() error { return nil }

func (k *tritonSink) token(text []byte, _ bool) error {
	k.n++
	if !k.stream {
		k.text = append(k.text, text...)
		return nil
	}
	return k.emit(k.response(text, !k.emptyFinal && k.n == k.j.req.outputTokens))
}

// malformed sends a response whose raw text_output claims more bytes than
// it holds (a whole answer: marks it to be sent so).
func (k *tritonSink) malformed() error {
	if !k.stream {
		k.broken = true
		return nil
	}
	return k.emit(k.brokenResponse())
}

func (k *tritonSink) finish() error {
	switch {
	case !k.stream && k.broken:
		return k.emit(k.brokenResponse())
	case !k.stream:
		return k.emit(k.response(k.text, true))
	case k.emptyFinal || k.n == 0:
		return k.emit(k.final())
	}
	return nil
}

// response carries one piece of text (or the whole answer).
func (k *tritonSink) response(text []byte, final bool) *tritonpb.ModelInferResponse {
	raw := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(text)), uint32(len(text)))
	resp := k.final()
	if !final {
		resp.Parameters = k.mark(false)
	}
	resp.Outputs = []*tritonpb.ModelInferResponse_InferOutputTensor{{Name: "text_output", Datatype: "BYTES", Shape: k.shape}}
	resp.RawOutputContents = [][]byte{append(raw, text...)}
	return resp
}

// final is an empty response marked triton_final_response.
func (k *tritonSink) final() *tritonpb.ModelInferResponse {
	return &tritonpb.ModelInferResponse{ModelName: k.j.srv.cfg.Model, ModelVersion: "1", Id: k.id, Parameters: k.mark(true)}
}

// mark is the triton_final_response parameter; a unary answer has none.
func (k *tritonSink) mark(final bool) map[string]*tritonpb.InferParameter {
	if k.unary {
		return nil
	}
	return map[string]*tritonpb.InferParameter{"triton_final_response": {ParameterChoice: &tritonpb.InferParameter_BoolParam{BoolParam: final}}}
}

func (k *tritonSink) brokenResponse() *tritonpb.ModelInferResponse {
	resp := k.response([]byte(" x"), false)
	resp.RawOutputContents[0] = append(binary.LittleEndian.AppendUint32(nil, 1<<20), " x"...)
	return resp
}
