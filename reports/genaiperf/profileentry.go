package genaiperf

import (
	"strconv"
	"unicode/utf8"

	"github.com/llmbench/llmbench/metrics"
)

// A request's element of perf_analyzer's "requests", appended in one
// pass. Its responses are synthesized from the record — llmbench keeps no
// raw SSE bytes — as minimal OpenAI objects whose text fields carry the
// exact chunk text, so re-parsing them (GenAI-Perf's or llmbench's parser)
// yields the same TTFT, chunk times and output text that were measured:
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
//   - Triton: one {"text_output": piece} per content chunk (a whole
//     answer's text when not streamed) at the chunk's arrival.
//
// A response is a JSON document held as a JSON string, so its text is
// escaped twice. The writer does this in one pass per chunk, straight
// into the export's buffer: the fixed parts of every response are escaped
// once, when the package starts (inString), and a chunk's text goes
// through appendTextInString, which writes each character as the two
// escapes in turn would. This is the export's hot path — a run writes it
// for every token — and issue 30 measured the tree-then-escape-again way
// it replaced at 34% of the client's CPU.

// appendEntry appends rec's element of "requests", payload being the body
// it sent.
func appendEntry(buf []byte, r *Run, rec *metrics.Record, payload []byte) ([]byte, error) {
	buf = append(buf, `{"timestamp":`...)
	buf = strconv.AppendInt(buf, rec.Sent, 10)
	buf = append(buf, `,"request_inputs":`...)
	if r.isTriton() {
		inputs, err := marshal(tritonInputs(payload), rapidCompact)
		if err != nil {
			return buf, err
		}
		buf = append(buf, inputs...)
	} else {
		buf = append(buf, `{"payload":`...)
		buf = appendString(buf, string(payload), rapidCompact)
		buf = append(buf, '}')
	}
	switch {
	case r.isTriton():
		buf = appendTritonResponses(buf, rec)
	case !r.Streaming || !r.isLLM():
		buf = appendWholeResponse(buf, r, rec)
	default:
		buf = appendStreamedResponses(buf, r, rec)
	}
	if e := rec.Err; e != nil {
		buf = append(buf, `,"error":{"class":`...)
		buf = appendString(buf, string(e.Class), rapidCompact)
		buf = append(buf, `,"status":`...)
		buf = strconv.AppendInt(buf, int64(e.Status), 10)
		buf = append(buf, `,"message":`...)
		buf = appendString(buf, e.Message, rapidCompact)
		buf = append(buf, '}')
	}
	return append(buf, '}'), nil
}

// The fixed parts of the synthesized responses, as they read inside the
// export's "response" strings.
var (
	eventOpen    = `{"response":"` + inString(`data: {"id":"llmbench-`)
	eventClose   = inString("\n\n") + `"}`
	chatChunk    = inString(`","object":"chat.completion.chunk","choices":[`)
	textChunk    = inString(`","object":"text_completion","choices":[`)
	contentDelta = inString(`{"index":0,"delta":{"content":"`)
	thinkDelta   = inString(`{"index":0,"delta":{"reasoning_content":"`)
	deltaClose   = inString(`"}}]}`)
	textChoice   = inString(`{"index":0,"text":"`)
	textClose    = inString(`"}]}`)
	usageOpen    = inString(`],"usage":`)
	doneEvent    = `{"response":"` + inString("data: [DONE]\n\n") + `"}`
	objectClose  = inString(`}`)
	promptTokens = inString(`{"prompt_tokens":`)
	outputTokens = inString(`,"completion_tokens":`)
	totalTokens  = inString(`,"total_tokens":`)
)

// appendStreamedResponses appends the timestamps and responses of a
// streamed chat or completions request: one event per content chunk, then,
// completed, the usage event (if reported) and [DONE] at Done.
func appendStreamedResponses(buf []byte, r *Run, rec *metrics.Record) []byte {
	closing := rec.Err == nil
	buf = append(buf, `,"response_timestamps":[`...)
	for i, t := range rec.Chunks {
		buf = appendComma(buf, i)
		buf = strconv.AppendInt(buf, t, 10)
	}
	if closing {
		n := len(rec.Chunks)
		if rec.Usage.Reported {
			buf = appendComma(buf, n)
			buf = strconv.AppendInt(buf, rec.Done, 10)
			n++
		}
		buf = appendComma(buf, n)
		buf = strconv.AppendInt(buf, rec.Done, 10)
	}
	buf = append(buf, `],"response_outputs":[`...)
	objType, completions := chatChunk, r.EndpointType == "completions"
	if completions {
		objType = textChunk
	}
	for i := range rec.Chunks {
		buf = appendComma(buf, i)
		buf = appendEventHead(buf, rec, objType)
		switch {
		case completions:
			buf = append(buf, textChoice...)
			buf = appendTextInString(buf, chunkText(rec, i))
			buf = append(buf, textClose...)
		default:
			delta := contentDelta
			if i < rec.ReasoningChunks {
				delta = thinkDelta
			}
			buf = append(buf, delta...)
			buf = appendTextInString(buf, chunkText(rec, i))
			buf = append(buf, deltaClose...)
		}
		buf = append(buf, eventClose...)
	}
	if closing {
		n := len(rec.Chunks)
		if rec.Usage.Reported {
			buf = appendComma(buf, n)
			buf = appendEventHead(buf, rec, objType)
			buf = append(buf, usageOpen...)
			buf = appendUsageInString(buf, rec.Usage, true)
			buf = append(buf, objectClose...)
			buf = append(buf, eventClose...)
			n++
		}
		buf = appendComma(buf, n)
		buf = append(buf, doneEvent...)
	}
	return append(buf, ']')
}

// appendEventHead opens an SSE event's response up to its choices:
// `data: {"id":"llmbench-<ID>","object":...,"choices":[`.
func appendEventHead(buf []byte, rec *metrics.Record, objType string) []byte {
	buf = append(buf, eventOpen...)
	buf = strconv.AppendInt(buf, rec.ID, 10)
	return append(buf, objType...)
}

// appendWholeResponse appends the single response of a request that was
// not streamed, or of an embeddings or rankings one, at its completion
// time: its whole JSON body. A failed request without a chunk has none.
func appendWholeResponse(buf []byte, r *Run, rec *metrics.Record) []byte {
	t, ok := completionTime(rec)
	if !ok {
		return append(buf, `,"response_timestamps":[],"response_outputs":[]`...)
	}
	buf = append(buf, `,"response_timestamps":[`...)
	buf = strconv.AppendInt(buf, t, 10)
	buf = append(buf, `],"response_outputs":[{"response":"`...)
	head := func(objType string) {
		buf = append(buf, inString(`{"id":"llmbench-`)...)
		buf = strconv.AppendInt(buf, rec.ID, 10)
		buf = append(buf, inString(`","object":"`+objType+`","choices":[`)...)
	}
	switch r.EndpointType {
	case "embeddings":
		buf = append(buf, inString(`{"object":"list","data":[]`)...)
	case "rankings":
		buf = append(buf, inString(`{"rankings":[]`)...)
	case "completions":
		head("text_completion")
		buf = append(buf, textChoice...)
		buf = appendTextInString(buf, rec.Output)
		buf = append(buf, inString(`"}]`)...)
	default:
		head("chat.completion")
		buf = append(buf, inString(`{"index":0,"message":{"role":"assistant","content":"`)...)
		buf = appendTextInString(buf, rec.Output)
		buf = append(buf, inString(`"}}]`)...)
	}
	if rec.Usage.Reported {
		buf = append(buf, inString(`,"usage":`)...)
		buf = appendUsageInString(buf, rec.Usage, r.isLLM())
	}
	return append(buf, inString(`}`)+`"}]`...)
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

// appendUsageInString appends the OpenAI usage object, inside a response
// string; embeddings have no completion tokens.
func appendUsageInString(buf []byte, u metrics.Usage, completion bool) []byte {
	buf = append(buf, promptTokens...)
	buf = strconv.AppendInt(buf, int64(u.PromptTokens), 10)
	total := u.PromptTokens
	if completion {
		buf = append(buf, outputTokens...)
		buf = strconv.AppendInt(buf, int64(u.CompletionTokens), 10)
		total += u.CompletionTokens
	}
	buf = append(buf, totalTokens...)
	buf = strconv.AppendInt(buf, int64(total), 10)
	return append(buf, objectClose...)
}

// appendTritonResponses appends a Triton request's responses as
// perf_analyzer records them: one {"text_output": piece} per content
// chunk, at the chunk's arrival.
func appendTritonResponses(buf []byte, rec *metrics.Record) []byte {
	buf = append(buf, `,"response_timestamps":[`...)
	for i, t := range rec.Chunks {
		buf = appendComma(buf, i)
		buf = strconv.AppendInt(buf, t, 10)
	}
	buf = append(buf, `],"response_outputs":[`...)
	for i := range rec.Chunks {
		buf = appendComma(buf, i)
		buf = append(buf, `{"text_output":`...)
		buf = appendString(buf, chunkText(rec, i), rapidCompact)
		buf = append(buf, '}')
	}
	return append(buf, ']')
}

func appendComma(buf []byte, i int) []byte {
	if i > 0 {
		return append(buf, ',')
	}
	return buf
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

// inString is JSON text as it reads inside a JSON string (rapidjson's
// escaping, no quotes): the fixed parts of a response.
func inString(json string) string {
	quoted := appendString(nil, json, rapidCompact)
	return string(quoted[1 : len(quoted)-1])
}

// appendTextInString appends s as a JSON string's contents (rapidjson's
// escaping, no quotes) that are themselves inside a JSON string: what
// appendString twice would give, in one pass. A character the first
// escape leaves alone needs no second one, except that invalid UTF-8
// becomes U+FFFD; an escape sequence the first makes starts with a
// backslash, which the second doubles, and `\"` gets its quote escaped.
func appendTextInString(buf []byte, s string) []byte {
	start := 0 // s[start:i] is waiting to be copied verbatim
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size // valid UTF-8 is written as it is
				continue
			}
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"':
			buf = append(buf, `\\\"`...)
		case '\\':
			buf = append(buf, `\\\\`...)
		case '\n':
			buf = append(buf, `\\n`...)
		case '\r':
			buf = append(buf, `\\r`...)
		case '\t':
			buf = append(buf, `\\t`...)
		case '\b':
			buf = append(buf, `\\b`...)
		case '\f':
			buf = append(buf, `\\f`...)
		default:
			if c < 0x20 {
				buf = append(buf, '\\', '\\', 'u', '0', '0', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&0xF])
			} else { // a byte of invalid UTF-8
				buf = utf8.AppendRune(buf, utf8.RuneError)
			}
		}
		i++
		start = i
	}
	return append(buf, s[start:]...)
}
