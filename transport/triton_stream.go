package transport

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport/tritonpb"
)

// Triton's answers (grpc_service.proto): ModelInfer returns one
// ModelInferResponse; ModelStreamInfer returns ModelStreamInferResponse
// messages, each an error_message or an infer_response. A streaming model
// (the TensorRT-LLM backend with "stream": true, the vLLM backend) answers
// one request with one response per generated piece, whose text_output
// holds the new piece only, and marks the last with the parameter
// triton_final_response = true — an empty response when the request asked
// for triton_enable_empty_final_response. text_output is BYTES, in
// raw_output_contents (each element a 4-byte little-endian length and the
// bytes) or in the tensor's bytes_contents. There is no usage: tokens are
// counted by tokenizer or chunks.

// tritonReader folds one request's responses into its record: every
// response with text is a content chunk, as every SSE event with text is.
type tritonReader struct {
	out   []byte
	limit int64 // bytes of text one answer may reach
	final bool
	// responses counts the infer responses read, for the message of an
	// empty answer.
	responses int
}

// reset readies the reader for a new request.
func (r *tritonReader) reset() {
	r.out, r.final, r.responses = r.out[:0], false, 0
}

// streamed folds one message of a ModelStreamInfer stream that arrived at
// at; final reports the request's last response.
func (r *tritonReader) streamed(m *tritonpb.ModelStreamInferResponse, at int64, rec *metrics.Record) (final bool, f *metrics.Failure) {
	if m.GetErrorMessage() != "" {
		return true, fail(metrics.ErrServer, 0, m.GetErrorMessage())
	}
	if m.GetInferResponse() == nil {
		return false, nil
	}
	if f := r.take(m.GetInferResponse(), at, rec); f != nil {
		return true, f
	}
	r.final = isFinal(m.GetInferResponse())
	return r.final, nil
}

// take appends a response's text_output as one chunk at at.
func (r *tritonReader) take(resp *tritonpb.ModelInferResponse, at int64, rec *metrics.Record) *metrics.Failure {
	r.responses++
	n := len(r.out)
	var err error
	if r.out, err = appendTextOutput(r.out, resp); err != nil {
		return fail(metrics.ErrMalformed, 0, err.Error())
	}
	if r.limit > 0 && int64(len(r.out)) > r.limit {
		return fail(metrics.ErrOversize, 0, errResponseSize(r.limit).Error())
	}
	if len(r.out) == n {
		return nil
	}
	rec.Chunks = append(rec.Chunks, at)
	rec.ChunkEnds = append(rec.ChunkEnds, int32(len(r.out)))
	return nil
}

// ended judges a stream the server closed cleanly: after the final
// response it is complete; content without it may be cut short
// (truncated); nothing at all is empty.
func (r *tritonReader) ended(rec *metrics.Record) *metrics.Failure {
	switch {
	case r.final && len(rec.Chunks) > 0:
		return nil
	case len(rec.Chunks) > 0:
		return fail(metrics.ErrTruncated, 0, "stream ended after content without a response marked "+finalResponse)
	case r.final:
		return fail(metrics.ErrEmpty, 0, "stream ended ("+finalResponse+") without text in "+tritonOutput)
	case r.responses == 0:
		return fail(metrics.ErrEmpty, 0, "stream ended without any response")
	}
	return fail(metrics.ErrEmpty, 0, "stream ended without text in "+tritonOutput+" nor a response marked "+finalResponse)
}

// whole judges a ModelInfer answer: it completes with text.
func (r *tritonReader) whole(rec *metrics.Record) *metrics.Failure {
	if len(rec.Chunks) == 0 {
		return fail(metrics.ErrEmpty, 0, "response without text in "+tritonOutput)
	}
	return nil
}

// isFinal reports the response parameter triton_final_response = true.
func isFinal(resp *tritonpb.ModelInferResponse) bool {
	p, ok := resp.GetParameters()[finalResponse]
	return ok && p.GetBoolParam()
}

// appendTextOutput appends the elements of the response's text_output to
// out, from raw_output_contents when the server sent them raw (what
// Triton does), else from the tensor's bytes_contents. A response without
// the tensor (an empty final response) adds nothing.
func appendTextOutput(out []byte, resp *tritonpb.ModelInferResponse) ([]byte, error) {
	for i, t := range resp.GetOutputs() {
		if t.GetName() != tritonOutput {
			continue
		}
		if t.GetDatatype() != "" && t.GetDatatype() != "BYTES" {
			return out, errors.New(tritonOutput + " has datatype " + t.GetDatatype() + ", want BYTES")
		}
		if raw := resp.GetRawOutputContents(); i < len(raw) {
			return appendRawBytes(out, raw[i])
		}
		for _, b := range t.GetContents().GetBytesContents() {
			out = append(out, b...)
		}
		return out, nil
	}
	return out, nil
}

// appendRawBytes appends the elements of a raw BYTES tensor.
func appendRawBytes(out, raw []byte) ([]byte, error) {
	for len(raw) > 0 {
		if len(raw) < 4 {
			return out, errors.New("raw " + tritonOutput + " ends inside an element's length")
		}
		n := binary.LittleEndian.Uint32(raw)
		raw = raw[4:]
		if uint64(n) > uint64(len(raw)) {
			return out, errors.New("raw " + tritonOutput + " element of " + strconv.FormatUint(uint64(n), 10) +
				" bytes, but only " + strconv.Itoa(len(raw)) + " follow")
		}
		out = append(out, raw[:n]...)
		raw = raw[n:]
	}
	return out, nil
}
