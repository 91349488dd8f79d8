package genaiperf

// The export's entries as the writer built them until issue 30: an
// object tree per chunk, serialised, wrapped as an SSE event and escaped
// again by the outer encoder. Kept only here, as the oracle the one-pass
// writer (profileentry.go) must equal byte for byte
// (profileentry_test.go).

import (
	"fmt"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
)

// legacyRequestEntry is one element of "requests".
func legacyRequestEntry(r *Run, rec *metrics.Record, payloads [][]byte) (*object, error) {
	if rec.Entry < 0 || rec.Entry >= len(payloads) {
		return nil, fmt.Errorf("genaiperf: request %d uses dataset entry %d, but only %d payloads were given",
			rec.ID, rec.Entry, len(payloads))
	}
	stamps, outputs := legacyResponses(r, rec)
	inputs := (&object{}).set("payload", string(payloads[rec.Entry]))
	if r.isTriton() {
		inputs = tritonInputs(payloads[rec.Entry])
	}
	o := (&object{}).
		set("timestamp", rec.Sent).
		set("request_inputs", inputs).
		set("response_timestamps", stamps).
		set("response_outputs", outputs)
	if rec.Err != nil {
		o.set("error", (&object{}).
			set("class", string(rec.Err.Class)).
			set("status", rec.Err.Status).
			set("message", rec.Err.Message))
	}
	return o, nil
}

// legacyResponses synthesizes a request's perf_analyzer responses from its
// record: the timestamps and the {"response": text} outputs, in arrival
// order. The events are minimal OpenAI objects whose text fields carry the
// exact chunk text, so re-parsing them (GenAI-Perf's or llmbench's parser)
// yields the same TTFT, chunk times and output text that were measured.
//
//   - Streaming chat: per content chunk `data: {"id", "object":
//     "chat.completion.chunk", "choices": [{"index": 0, "delta":
//     {"content": text}}]}` — "reasoning_content" for the leading reasoning
//     chunks; completions use "text_completion" and "text". A completed
//     request then gets a usage event when the server reported usage, and
//     `data: [DONE]`, both stamped at Done.
//   - Non-streaming (and embeddings): one response, the whole JSON body,
//     at the completion time. Embedding vectors are not kept, so "data" is
//     empty.
func legacyResponses(r *Run, rec *metrics.Record) (stamps, outputs []any) {
	stamps, outputs = []any{}, []any{}
	add := func(t int64, text string) {
		stamps = append(stamps, t)
		outputs = append(outputs, (&object{}).set("response", text))
	}
	if r.isTriton() {
		return legacyTritonResponses(r, rec)
	}
	if !r.Streaming || !r.isLLM() {
		if t, ok := legacyCompletionTime(rec); ok {
			add(t, legacyCompact(legacyFullBody(r, rec)))
		}
		return stamps, outputs
	}
	for i, t := range rec.Chunks {
		add(t, legacySseEvent(legacyChunkBody(r, rec, i)))
	}
	if rec.Err == nil {
		if rec.Usage.Reported {
			add(rec.Done, legacySseEvent(legacyUsageChunk(r, rec)))
		}
		add(rec.Done, "data: [DONE]\n\n")
	}
	return stamps, outputs
}

// legacyCompletionTime is when a non-streaming response arrived: its single
// chunk, or Done for a completed request that recorded none. A failed
// request without a chunk has no response.
func legacyCompletionTime(rec *metrics.Record) (int64, bool) {
	if len(rec.Chunks) > 0 {
		return rec.Chunks[0], true
	}
	return rec.Done, rec.Err == nil
}

// legacyChunkBody is the JSON object of content chunk i.
func legacyChunkBody(r *Run, rec *metrics.Record, i int) *object {
	choice := (&object{}).set("index", 0)
	objType := "chat.completion.chunk"
	if r.EndpointType == "completions" {
		objType = "text_completion"
		choice.set("text", chunkText(rec, i))
	} else {
		field := "content"
		if i < rec.ReasoningChunks {
			field = "reasoning_content"
		}
		choice.set("delta", (&object{}).set(field, chunkText(rec, i)))
	}
	return legacyResponseHead(rec, objType).set("choices", []any{choice})
}

// legacyUsageChunk is the final usage-only event of stream_options.include_usage.
func legacyUsageChunk(r *Run, rec *metrics.Record) *object {
	objType := "chat.completion.chunk"
	if r.EndpointType == "completions" {
		objType = "text_completion"
	}
	return legacyResponseHead(rec, objType).set("choices", []any{}).set("usage", legacyUsage(rec.Usage, true))
}

// legacyFullBody is the JSON body of a non-streaming response.
func legacyFullBody(r *Run, rec *metrics.Record) *object {
	var o *object
	switch r.EndpointType {
	case "embeddings":
		o = (&object{}).set("object", "list").set("data", []any{})
	case "rankings":
		o = (&object{}).set("rankings", []any{})
	case "completions":
		choice := (&object{}).set("index", 0).set("text", rec.Output)
		o = legacyResponseHead(rec, "text_completion").set("choices", []any{choice})
	default:
		msg := (&object{}).set("role", "assistant").set("content", rec.Output)
		choice := (&object{}).set("index", 0).set("message", msg)
		o = legacyResponseHead(rec, "chat.completion").set("choices", []any{choice})
	}
	if rec.Usage.Reported {
		o.set("usage", legacyUsage(rec.Usage, r.isLLM()))
	}
	return o
}

// legacyResponseHead starts a response object with a synthesized id, unique
// within the run, and the OpenAI object type.
func legacyResponseHead(rec *metrics.Record, objectType string) *object {
	return (&object{}).set("id", "llmbench-"+strconv.FormatInt(rec.ID, 10)).set("object", objectType)
}

// legacyUsage is the OpenAI usage object; embeddings have no completion tokens.
func legacyUsage(u metrics.Usage, completion bool) *object {
	o := (&object{}).set("prompt_tokens", u.PromptTokens)
	if !completion {
		return o.set("total_tokens", u.PromptTokens)
	}
	return o.set("completion_tokens", u.CompletionTokens).set("total_tokens", u.PromptTokens+u.CompletionTokens)
}

// legacySseEvent frames a JSON object as one server-sent event.
func legacySseEvent(o *object) string { return "data: " + legacyCompact(o) + "\n\n" }

// legacyCompact encodes o as servers do: no whitespace, UTF-8 verbatim.
func legacyCompact(o *object) string {
	b, _ := marshal(o, rapidCompact) // only the types built above: cannot fail
	return string(b)
}

// legacyTritonResponses are a Triton request's responses as perf_analyzer
// records them, one {"text_output": piece} per content chunk (a whole
// answer's text when not streamed) at the chunk's arrival.
func legacyTritonResponses(_ *Run, rec *metrics.Record) (stamps, outputs []any) {
	stamps, outputs = []any{}, []any{}
	for i, t := range rec.Chunks {
		stamps = append(stamps, t)
		outputs = append(outputs, (&object{}).set("text_output", chunkText(rec, i)))
	}
	return stamps, outputs
}
