package transport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport/tritonpb"
)

// rawElements is a reference reader of a raw BYTES tensor (each element a
// 4-byte little-endian length and its bytes), written with encoding/binary's
// reader rather than the slicing appendRawBytes does: the elements, or ok
// false when the tensor ends inside an element.
func rawElements(raw []byte) (elems [][]byte, ok bool) {
	r := bytes.NewReader(raw)
	for r.Len() > 0 {
		var n uint32
		if binary.Read(r, binary.LittleEndian, &n) != nil || uint64(n) > uint64(r.Len()) {
			return nil, false
		}
		e := make([]byte, n)
		_, _ = io.ReadFull(r, e)
		elems = append(elems, e)
	}
	return elems, true
}

// wantText is the text a response's text_output holds by Triton's rules,
// found without appendTextOutput: its elements from raw_output_contents at
// the tensor's position when there is one, else its bytes_contents; ok
// false when the tensor is not BYTES or its raw contents are cut.
func wantText(resp *tritonpb.ModelInferResponse) (text []byte, ok bool) {
	for i, t := range resp.GetOutputs() {
		if t.GetName() != tritonOutput {
			continue
		}
		if d := t.GetDatatype(); d != "" && d != "BYTES" {
			return nil, false
		}
		if i < len(resp.GetRawOutputContents()) {
			elems, ok := rawElements(resp.GetRawOutputContents()[i])
			return bytes.Join(elems, nil), ok
		}
		return bytes.Join(t.GetContents().GetBytesContents(), nil), true
	}
	return nil, true
}

// FuzzTritonResponse decodes arbitrary bytes as a ModelStreamInfer message
// from a server (grpc_service.proto) and folds it into a record, as a
// streamed request does, under an arbitrary response size limit. It never
// panics; an error message is a server error that ends the request; a
// malformed text_output is a malformed failure; text past the limit is an
// oversize failure; otherwise the record gains the text the reference
// reader finds, as one chunk (none when there is no text), and the
// request ends exactly when the response says triton_final_response.
func FuzzTritonResponse(f *testing.F) {
	text := func(s string) []byte { return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...) }
	out := []*tritonpb.ModelInferResponse_InferOutputTensor{{Name: tritonOutput, Datatype: "BYTES", Shape: []int64{1}}}
	final := map[string]*tritonpb.InferParameter{finalResponse: {ParameterChoice: &tritonpb.InferParameter_BoolParam{BoolParam: true}}}
	for _, m := range []*tritonpb.ModelStreamInferResponse{
		{InferResponse: &tritonpb.ModelInferResponse{Outputs: out, RawOutputContents: [][]byte{text(" hello")}}},
		{InferResponse: &tritonpb.ModelInferResponse{Outputs: out, RawOutputContents: [][]byte{append(text("a"), text("bc")...)}, Parameters: final}},
		{InferResponse: &tritonpb.ModelInferResponse{Parameters: final}},
		{InferResponse: &tritonpb.ModelInferResponse{Outputs: out, RawOutputContents: [][]byte{binary.LittleEndian.AppendUint32(nil, 1<<20)}}},
		{InferResponse: &tritonpb.ModelInferResponse{Outputs: []*tritonpb.ModelInferResponse_InferOutputTensor{
			{Name: "other", Datatype: "FP32"}, {Name: tritonOutput, Contents: &tritonpb.InferTensorContents{BytesContents: [][]byte{[]byte("x"), []byte("yz")}}}}}},
		{InferResponse: &tritonpb.ModelInferResponse{Outputs: []*tritonpb.ModelInferResponse_InferOutputTensor{{Name: tritonOutput, Datatype: "INT32"}}}},
		{ErrorMessage: "model is not ready"},
		{},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(0))
		f.Add(b, uint16(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		var m tritonpb.ModelStreamInferResponse
		if proto.Unmarshal(data, &m) != nil {
			return
		}
		r := tritonReader{limit: int64(limit)}
		var rec metrics.Record
		end, failure := r.streamed(&m, 7, &rec)
		want, ok := wantText(m.GetInferResponse())
		switch {
		case m.GetErrorMessage() != "":
			if !end || failure == nil || failure.Class != metrics.ErrServer {
				t.Fatalf("error message %q: end %v, %+v; want a server error that ends the request", m.GetErrorMessage(), end, failure)
			}
			return
		case m.GetInferResponse() == nil:
			if end || failure != nil || len(rec.Chunks) != 0 {
				t.Fatalf("a message without a response: end %v, %+v, %d chunks", end, failure, len(rec.Chunks))
			}
			return
		case !ok:
			if failure == nil || failure.Class != metrics.ErrMalformed || !end {
				t.Fatalf("a malformed text_output gave %+v, end %v", failure, end)
			}
			return
		case limit > 0 && len(want) > int(limit):
			if failure == nil || failure.Class != metrics.ErrOversize || !end {
				t.Fatalf("%d bytes of text past a limit of %d gave %+v", len(want), limit, failure)
			}
			return
		}
		if failure != nil || end != isFinal(m.GetInferResponse()) || !bytes.Equal(r.out, want) {
			t.Fatalf("gave %q, %+v, end %v; want %q, end %v", r.out, failure, end, want, isFinal(m.GetInferResponse()))
		}
		if chunks := min(len(want), 1); len(rec.Chunks) != chunks || len(rec.ChunkEnds) != chunks ||
			chunks == 1 && (rec.Chunks[0] != 7 || rec.ChunkEnds[0] != int32(len(want))) {
			t.Fatalf("%q gave chunks %v ending at %v", want, rec.Chunks, rec.ChunkEnds)
		}
	})
}

// FuzzTritonRequest reads an arbitrary triton body (a scenario's or
// --extra-inputs' JSON object of input tensors) as the request it stands
// for. It is refused with an error, or every input becomes a tensor of
// the backend's shape whose raw contents hold exactly its elements: BYTES
// read back, with the response's reader, as the strings given, one byte
// per BOOL, four or eight per number by its type.
func FuzzTritonRequest(f *testing.F) {
	for _, s := range []string{`{"model":"e","text_input":["héllo"],"max_tokens":[9],"temperature":[0.5],"random_seed":[7],"stream":[true]}`,
		`{"n":[3000000000],"flag":[false],"pair":["a","bc"],"f":[1.5,2]}`, `{"text_input":[1]}`, `{"x":[]}`, `{"x":[null]}`, `{"model":1}`,
		`{"max_tokens":[1e3]}`, `{"random_seed":[-1]}`, `{"a":["x"]`, `[]`, `{"a":[{"b":1}]}`, `{"a":["\u0000\ud800"]}`} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, vllm bool) {
		backend := TensorRTLLM
		if vllm {
			backend = VLLM
		}
		req, err := tritonRequest(body, backend, true)
		if err != nil {
			if req != nil || !strings.HasPrefix(err.Error(), "triton body") {
				t.Fatalf("error %q (request %v): want only an error saying triton body", err, req)
			}
			return
		}
		// What follows the object is not read (TestTritonRequestRefuses):
		// the body is llmbench's own, built from checked extra inputs.
		var object json.RawMessage
		if err := json.NewDecoder(bytes.NewReader(body)).Decode(&object); err != nil {
			t.Fatalf("accepted %q, which does not start with a JSON value: %v", body, err)
		}
		body = object
		lists := inputLists(t, body)
		if len(req.GetInputs()) != len(lists) || len(req.GetRawInputContents()) != len(lists) {
			t.Fatalf("%d inputs and %d raw contents for %d members", len(req.GetInputs()), len(req.GetRawInputContents()), len(lists))
		}
		for i, in := range req.GetInputs() {
			checkTensor(t, in, req.GetRawInputContents()[i], lists[i], backend)
		}
	})
}

// inputLists is the values of the members of a triton body other than
// "model", in their order.
func inputLists(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	_, _ = dec.Token()
	var lists []json.RawMessage
	for dec.More() {
		key, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if key != "model" {
			lists = append(lists, v)
		}
	}
	return lists
}

// checkTensor checks one input tensor against the JSON list it came from.
func checkTensor(t *testing.T, in *tritonpb.ModelInferRequest_InferInputTensor, raw []byte, list json.RawMessage, backend string) {
	t.Helper()
	var elems []json.RawMessage
	if err := json.Unmarshal(list, &elems); err != nil || len(elems) == 0 {
		t.Fatalf("input %s from %s: %v", in.GetName(), list, err)
	}
	shape := in.GetShape()
	if n := int64(len(elems)); backend == VLLM && !(len(shape) == 1 && shape[0] == n) ||
		backend != VLLM && !(len(shape) == 2 && shape[0] == 1 && shape[1] == n) {
		t.Fatalf("input %s of %d elements has shape %v for %s", in.GetName(), n, shape, backend)
	}
	size := map[string]int{"BOOL": 1, "INT32": 4, "FP32": 4, "INT64": 8, "UINT64": 8, "FP64": 8}[in.GetDatatype()]
	if in.GetDatatype() != "BYTES" {
		if size == 0 || len(raw) != size*len(elems) {
			t.Fatalf("input %s: %d bytes of %s for %d elements", in.GetName(), len(raw), in.GetDatatype(), len(elems))
		}
		return
	}
	got, ok := rawElements(raw)
	if !ok || len(got) != len(elems) {
		t.Fatalf("input %s: raw BYTES %q are not %d elements", in.GetName(), raw, len(elems))
	}
	for k, e := range elems {
		var s string
		if err := json.Unmarshal(e, &s); err != nil || s != string(got[k]) {
			t.Fatalf("input %s element %d: %s sent as %q", in.GetName(), k, e, got[k])
		}
	}
}
