package genaiperf

import (
	"strconv"

	"github.com/llmbench/llmbench/metrics"
)

// responses synthesizes a request's perf_analyzer responses from its
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
func responses(r *Run, rec *metrics.Record) (stamps, outputs []any) {
	stamps, outputs = []any{}, []any{}
	add := func(t int64, text string) {
		stamps = append(stamps, t)
		outputs = append(outputs, (&object{}).set("response", text))
	}
	if r.isTriton() {
		return tritonResponses(r, rec)
	}
	if !r.Streaming || !r.isLLM() {
		if t, ok := completionTime(rec); ok {
			add(t, compact(fullBody(r, rec)))
		}
		return stamps, outputs
	}
	for i, t := range rec.Chunks {
		add(t, sseEvent(chunkBody(r, rec, i)))
	}
	if rec.Err == nil {
		if rec.Usage.Reported {
			add(rec.Done, sseEvent(usageChunk(r, rec)))
		}
		add(rec.Done, "data: [DONE]\n\n")
	}
	return stamps, outputs
}

// completionTime is when a non-streaming response arrived: its single
// chunk, or Done for a completed request that recorded none. A failed
// request without a chunk has no response.
func completionTime(rec *metrics.Record) (int64, bool) {
	if len(rec.Chunks) > 0 {
		return rec.Chunks[0], true
	}
	return rec.Done, rec.Err == nil
}

// chunkBody is the JSON object of content chunk i.
func chunkBody(r *Run, rec *metrics.Record, i int) *object {
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
	return responseHead(rec, objType).set("choices", []any{choice})
}

// usageChunk is the final usage-only event of stream_options.include_usage.
func usageChunk(r *Run, rec *metrics.Record) *object {
	objType := "chat.completion.chunk"
	if r.EndpointType == "completions" {
		objType = "text_completion"
	}
	return responseHead(rec, objType).set("choices", []any{}).set("usage", usage(rec.Usage, true))
}

// fullBody is the JSON body of a non-streaming response.
func fullBody(r *Run, rec *metrics.Record) *object {
	var o *object
	switch r.EndpointType {
	case "embeddings":
		o = (&object{}).set("object", "list").set("data", []any{})
	case "rankings":
		o = (&object{}).set("rankings", []any{})
	case "completions":
		choice := (&object{}).set("index", 0).set("text", rec.Output)
		o = responseHead(rec, "text_completion").set("choices", []any{choice})
	default:
		msg := (&object{}).set("role", "assistant").set("content", rec.Output)
		choice := (&object{}).set("index", 0).set("message", msg)
		o = responseHead(rec, "chat.completion").set("choices", []any{choice})
	}
	if rec.Usage.Reported {
		o.set("usage", usage(rec.Usage, r.isLLM()))
	}
	return o
}

// responseHead starts a response object with a synthesized id, unique
// within the run, and the OpenAI object type.
func responseHead(rec *metrics.Record, objectType string) *object {
	return (&object{}).set("id", "llmbench-"+strconv.FormatInt(rec.ID, 10)).set("object", objectType)
}

// usage is the OpenAI usage object; embeddings have no completion tokens.
func usage(u metrics.Usage, completion bool) *object {
	o := (&object{}).set("prompt_tokens", u.PromptTokens)
	if !completion {
		return o.set("total_tokens", u.PromptTokens)
	}
	return o.set("completion_tokens", u.CompletionTokens).set("total_tokens", u.PromptTokens+u.CompletionTokens)
}

// chunkText recovers chunk i's text from Output and ChunkEnds. Offsets
// out of range (an inconsistent record) are clamped rather than trusted,
// so a bad record yields odd text, never a panic.
func chunkText(rec *metrics.Record, i int) string {
	n := len(rec.Output)
	start, end := 0, n
	if i > 0 && i-1 < len(rec.ChunkEnds) {
		start = min(max(int(rec.ChunkEnds[i-1]), 0), n)
	}
	if i < len(rec.ChunkEnds) {
		end = int(rec.ChunkEnds[i])
	}
	end = min(max(end, start), n)
	return rec.Output[start:end]
}

// sseEvent frames a JSON object as one server-sent event.
func sseEvent(o *object) string { return "data: " + compact(o) + "\n\n" }

// compact encodes o as servers do: no whitespace, UTF-8 verbatim.
func compact(o *object) string {
	b, _ := marshal(o, rapidCompact) // only the types built above: cannot fail
	return string(b)
}
