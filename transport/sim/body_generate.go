package sim

import (
	"encoding/json"
	"net/http"
)

// The whole TGI and KServe bodies and their errors; field names as in
// transport/decode_generate.go.

type tgiDetails struct {
	FinishReason    string     `json:"finish_reason"`
	GeneratedTokens int        `json:"generated_tokens"`
	Seed            *int       `json:"seed"`
	Prefill         []struct{} `json:"prefill"`
	Tokens          []struct{} `json:"tokens"`
}

type tgiBody struct {
	GeneratedText string      `json:"generated_text"`
	Details       *tgiDetails `json:"details,omitempty"`
}

type kserveBody struct {
	ModelName    string `json:"model_name"`
	ModelVersion string `json:"model_version"`
	TextOutput   string `json:"text_output"`
}

// generateObject is TGI's GenerateResponse or Triton's generate response.
func (s *jsonSink) generateObject() any {
	j := s.j
	if j.req.api == apiKServe {
		return kserveBody{ModelName: j.srv.cfg.Model, ModelVersion: "1", TextOutput: string(s.content)}
	}
	b := tgiBody{GeneratedText: string(s.content)}
	if j.req.details {
		b.Details = &tgiDetails{FinishReason: "length", GeneratedTokens: j.req.outputTokens, Prefill: []struct{}{}, Tokens: []struct{}{}}
	}
	return b
}

// tgiErrorTypes maps the sim's error types to TGI's error_type values
// (router/src/infer/mod.rs InferError::error_type).
var tgiErrorTypes = map[string]string{
	"rate_limit_error":      "overloaded",
	"internal_server_error": "generation",
	"invalid_request_error": "validation",
}

// writeGenerateError answers with TGI's ErrorResponse {"error",
// "error_type"} or Triton's {"error"}.
func writeGenerateError(a api, w http.ResponseWriter, status int, typ, msg string) {
	body := map[string]string{"error": msg}
	if a == apiTGI {
		t, ok := tgiErrorTypes[typ]
		if !ok {
			t = "generation"
		}
		body["error_type"] = t
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
