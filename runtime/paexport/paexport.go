// Package paexport reads perf_analyzer's profile_export.json — written by
// GenAI-Perf runs and by llmbench — back into per-request records, with
// GenAI-Perf's preprocessing of the stored responses, so historical
// GenAI-Perf runs can be recomputed and compared with llmbench runs.
package paexport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
)

// Export is one experiment of a profile_export.json.
type Export struct {
	ServiceKind string
	Endpoint    string
	// Mode and Value are perf_analyzer's experiment key ("concurrency", 8).
	Mode  string
	Value float64
	// Records are the requests in file order, failures (llmbench's
	// llmbench_failed_requests) after the others.
	Records []metrics.Record
	// Prompts are each record's prompt text as GenAI-Perf counts ISL on it
	// (chat: message contents joined by " "), indexed by Record.Entry.
	Prompts []string
	// Models are the distinct "model" fields of the request payloads, in
	// the order first sent: the export names its model nowhere else, and a
	// comparison must know it.
	Models []string
}

type fileJSON struct {
	Experiments []struct {
		Experiment struct {
			Mode  string  `json:"mode"`
			Value float64 `json:"value"`
		} `json:"experiment"`
		Requests []requestJSON `json:"requests"`
		Failed   []requestJSON `json:"llmbench_failed_requests"`
	} `json:"experiments"`
	ServiceKind string `json:"service_kind"`
	Endpoint    string `json:"endpoint"`
}

type requestJSON struct {
	Timestamp int64 `json:"timestamp"`
	// RequestInputs holds "payload" (OpenAI) or the input tensors by name
	// (Triton: "text_input", "max_tokens", ...).
	RequestInputs      map[string]json.RawMessage `json:"request_inputs"`
	ResponseTimestamps []int64                    `json:"response_timestamps"`
	ResponseOutputs    []struct {
		Response   string  `json:"response"`
		TextOutput *string `json:"text_output"` // Triton's output tensor
	} `json:"response_outputs"`
	Error *struct {
		Class   string `json:"class"`
		Status  int    `json:"status"`
		Message string `json:"message"`
	} `json:"error"`
}

// Read parses a profile_export.json: OpenAI-style exports (chat,
// completions, embeddings) and Triton ones (service kind triton: input
// tensors by name, text_output responses).
func Read(r io.Reader) (*Export, error) {
	var f fileJSON
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("not a perf_analyzer profile export: %w", err)
	}
	if len(f.Experiments) == 0 {
		return nil, errors.New("the export has no experiments")
	}
	if f.ServiceKind != "" && f.ServiceKind != "openai" && f.ServiceKind != "triton" {
		return nil, fmt.Errorf("service kind %q is not supported (only openai and triton)", f.ServiceKind)
	}
	triton := f.ServiceKind == "triton"
	exp := f.Experiments[0]
	out := &Export{ServiceKind: f.ServiceKind, Endpoint: f.Endpoint, Mode: exp.Experiment.Mode, Value: exp.Experiment.Value}
	for _, req := range append(exp.Requests, exp.Failed...) {
		rec, prompt, model, err := record(req, len(out.Records), triton)
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", len(out.Records), err)
		}
		if model != "" && !slices.Contains(out.Models, model) {
			out.Models = append(out.Models, model)
		}
		out.Records = append(out.Records, rec)
		out.Prompts = append(out.Prompts, prompt)
	}
	return out, nil
}

// record rebuilds one request: content chunks at their response's time.
func record(req requestJSON, i int, triton bool) (metrics.Record, string, string, error) {
	if len(req.ResponseTimestamps) != len(req.ResponseOutputs) {
		return metrics.Record{}, "", "", fmt.Errorf("%d response timestamps for %d responses",
			len(req.ResponseTimestamps), len(req.ResponseOutputs))
	}
	prev, what := req.Timestamp, "the request"
	for k, at := range req.ResponseTimestamps {
		if at < prev {
			// Every time metric would come out negative or mixed up.
			return metrics.Record{}, "", "", fmt.Errorf("response %d at %d ns is before %s at %d ns", k, at, what, prev)
		}
		prev, what = at, fmt.Sprintf("response %d", k)
	}
	rec := metrics.Record{ID: int64(i), Entry: i, Sent: req.Timestamp}
	var out strings.Builder
	responses, content := merged(req), responseContent
	if triton {
		responses, content = tritonOutputs(req), func(text string, _ *metrics.Record) string { return text }
	}
	for _, resp := range responses {
		piece := content(resp.text, &rec)
		if piece == "" {
			continue // GenAI-Perf drops empty responses with their timestamps
		}
		out.WriteString(piece)
		rec.Chunks = append(rec.Chunks, resp.at)
		rec.ChunkEnds = append(rec.ChunkEnds, int32(out.Len()))
	}
	rec.Output = out.String()
	if n := len(req.ResponseTimestamps); n > 0 {
		rec.Done = req.ResponseTimestamps[n-1]
	}
	if e := req.Error; e != nil {
		rec.Err = &metrics.Failure{Class: metrics.ErrorClass(e.Class), Status: e.Status, Message: e.Message}
	}
	if triton {
		return rec, strings.Join(stringsOf(req.RequestInputs["text_input"]), " "), "", nil
	}
	var payload string
	if raw, ok := req.RequestInputs["payload"]; ok {
		if err := json.Unmarshal(raw, &payload); err != nil {
			return rec, "", "", fmt.Errorf("request payload is not a string: %w", err)
		}
	}
	prompt, model, err := promptText(payload)
	return rec, prompt, model, err
}

// tritonOutputs are a Triton request's responses: the text_output pieces
// (an empty one, the final response, carries no content).
func tritonOutputs(req requestJSON) []response {
	out := make([]response, 0, len(req.ResponseOutputs))
	for i, r := range req.ResponseOutputs {
		if r.TextOutput != nil {
			out = append(out, response{text: *r.TextOutput, at: req.ResponseTimestamps[i]})
		}
	}
	return out
}

type response struct {
	text string
	at   int64
}

// merged applies GenAI-Perf's first preprocessing step: a response that
// does not start an SSE field is the tail of an event split across
// callbacks and is appended to the previous response (keeping its time).
func merged(req requestJSON) []response {
	var out []response
	for i, r := range req.ResponseOutputs {
		text := r.Response
		if len(out) > 0 && !startsField(text) && strings.Contains(out[len(out)-1].text, "data:") {
			out[len(out)-1].text += text
			continue
		}
		out = append(out, response{text: text, at: req.ResponseTimestamps[i]})
	}
	return out
}

// startsField reports whether a stored response begins an SSE field.
func startsField(s string) bool {
	for _, p := range []string{"data:", ":", "event:", "id:", "retry:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// responseContent returns the text one stored response carries: the
// concatenated content of its SSE events, or of the JSON body of a
// non-streaming response. Undecodable events and error events carry
// none, as in GenAI-Perf, which counts them as failed parses only.
func responseContent(text string, rec *metrics.Record) string {
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") {
		return decoded([]byte(t), rec)
	}
	p := transport.NewSSEParser(strings.NewReader(text), transport.NewClock())
	var b strings.Builder
	for {
		ev, err := p.Next()
		if err != nil {
			return b.String()
		}
		if bytes.Equal(ev.Type, []byte("error")) || bytes.Equal(ev.Data, []byte("[DONE]")) {
			continue
		}
		b.WriteString(decoded(ev.Data, rec))
	}
}

func decoded(data []byte, rec *metrics.Record) string {
	r, err := transport.DecodeResponse(data)
	if err != nil || r.Error != "" {
		return ""
	}
	if r.Usage.Reported {
		rec.Usage = r.Usage
	}
	if r.Reasoning && r.Text != "" && rec.ReasoningChunks == len(rec.Chunks) {
		rec.ReasoningChunks++
	}
	return r.Text
}

// promptText is the text GenAI-Perf counts ISL on: chat message contents
// joined by " ", the completions prompt (joined if a list), embeddings
// input; and the model the payload names.
func promptText(payload string) (string, string, error) {
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Prompt json.RawMessage `json:"prompt"`
		Input  json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal([]byte(payload), &body); err != nil {
		return "", "", fmt.Errorf("request payload is not JSON: %w", err)
	}
	var parts []string
	for _, m := range body.Messages {
		parts = append(parts, stringsOf(m.Content)...)
	}
	parts = append(parts, stringsOf(body.Prompt)...)
	parts = append(parts, stringsOf(body.Input)...)
	return strings.Join(parts, " "), body.Model, nil
}

// stringsOf reads a JSON string or list of strings; anything else is none.
func stringsOf(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	return nil
}
