package sim

import (
	"encoding/json"
	"net/http"
)

// The whole (stream=false) Responses and Messages bodies, and Anthropic's
// error body; field names as in transport/decode_responses.go and
// transport/decode_messages.go.

type responsesPart struct {
	Type        string    `json:"type"`
	Text        string    `json:"text"`
	Annotations *[]string `json:"annotations,omitempty"`
}

type responsesItem struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Status  string          `json:"status,omitempty"`
	Role    string          `json:"role,omitempty"`
	Summary *[]string       `json:"summary,omitempty"`
	Content []responsesPart `json:"content"`
}

type responsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

type responsesBody struct {
	ID        string          `json:"id"`
	Object    string          `json:"object"`
	CreatedAt int64           `json:"created_at"`
	Status    string          `json:"status"`
	Error     *struct{}       `json:"error"`
	Model     string          `json:"model"`
	Output    []responsesItem `json:"output"`
	Usage     responsesUsage  `json:"usage"`
}

// responsesObject is the whole Response: a reasoning item when the sim
// reasons, then the message.
func (s *jsonSink) responsesObject() responsesBody {
	j := s.j
	r := responsesBody{ID: j.id, Object: "response", CreatedAt: j.created, Status: "completed", Model: j.srv.cfg.Model}
	if len(s.reasoning) > 0 {
		r.Output = append(r.Output, responsesItem{ID: "rs_1", Type: "reasoning", Summary: &[]string{},
			Content: []responsesPart{{Type: "reasoning_text", Text: string(s.reasoning)}}})
	}
	r.Output = append(r.Output, responsesItem{ID: "msg_1", Type: "message", Status: "completed", Role: "assistant",
		Content: []responsesPart{{Type: "output_text", Text: string(s.content), Annotations: &[]string{}}}})
	r.Usage.InputTokens, r.Usage.OutputTokens = j.req.promptTokens, j.req.outputTokens
	r.Usage.InputTokensDetails.CachedTokens = j.cached
	r.Usage.OutputTokensDetails.ReasoningTokens = min(j.reasoning, j.req.outputTokens)
	r.Usage.TotalTokens = j.req.promptTokens + j.req.outputTokens
	return r
}

type messagesBlock struct {
	Type      string  `json:"type"`
	Text      *string `json:"text,omitempty"`
	Thinking  *string `json:"thinking,omitempty"`
	Signature *string `json:"signature,omitempty"`
}

type messagesBody struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Role         string          `json:"role"`
	Model        string          `json:"model"`
	Content      []messagesBlock `json:"content"`
	StopReason   string          `json:"stop_reason"`
	StopSequence *string         `json:"stop_sequence"`
	Usage        struct {
		InputTokens int `json:"input_tokens"`
		// The cache counts are sent only when the sim has a prefix
		// cache; input_tokens then counts the uncached rest, as
		// Anthropic's does.
		CacheCreationInputTokens *int `json:"cache_creation_input_tokens,omitempty"`
		CacheReadInputTokens     *int `json:"cache_read_input_tokens,omitempty"`
		OutputTokens             int  `json:"output_tokens"`
	} `json:"usage"`
}

// messagesObject is the whole Message: a thinking block when the sim
// reasons, then the text; it stops at max_tokens, the sim's only end.
func (s *jsonSink) messagesObject() messagesBody {
	j := s.j
	m := messagesBody{ID: j.id, Type: "message", Role: "assistant", Model: j.srv.cfg.Model, StopReason: "max_tokens"}
	if len(s.reasoning) > 0 {
		thinking, sig := string(s.reasoning), ""
		m.Content = append(m.Content, messagesBlock{Type: "thinking", Thinking: &thinking, Signature: &sig})
	}
	text := string(s.content)
	m.Content = append(m.Content, messagesBlock{Type: "text", Text: &text})
	m.Usage.InputTokens, m.Usage.OutputTokens = j.req.promptTokens, j.req.outputTokens
	if j.srv.cache != nil {
		created, read := 0, j.cached
		m.Usage.InputTokens -= read
		m.Usage.CacheCreationInputTokens, m.Usage.CacheReadInputTokens = &created, &read
	}
	return m
}

// anthropicTypes maps the OpenAI error types the sim uses onto
// Anthropic's (https://docs.anthropic.com/en/api/errors).
var anthropicTypes = map[string]string{
	"rate_limit_error": "rate_limit_error", "internal_server_error": "api_error",
	"invalid_request_error": "invalid_request_error", "not_found_error": "not_found_error",
}

// writeAnthropicError answers with Anthropic's error body,
// {"type":"error","error":{"type","message"}}.
func writeAnthropicError(w http.ResponseWriter, status int, typ, msg string) {
	if t, ok := anthropicTypes[typ]; ok {
		typ = t
	}
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	e.Type, e.Error.Type, e.Error.Message = "error", typ, msg
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(e)
}

// writeErrorFor answers in the error layout of the request's API.
func writeErrorFor(a api, w http.ResponseWriter, status int, typ, msg string) {
	switch a {
	case apiMessages:
		writeAnthropicError(w, status, typ, msg)
		return
	case apiTGI, apiKServe:
		writeGenerateError(a, w, status, typ, msg)
		return
	}
	writeError(w, status, typ, msg)
}
