package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// writeModelNotFound answers a request for a model the server does not
// serve (with StrictModel), in the flavor's error shape.
func (s *Server) writeModelNotFound(w http.ResponseWriter, model string) {
	if s.cfg.Flavor != FlavorOllama {
		writeError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", model))
		return
	}
	// Ollama v0.17.4's body, as the real-server suite saw it: type
	// api_error, null param and code, streaming or not.
	var e struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	e.Error.Message, e.Error.Type = fmt.Sprintf("model '%s' not found", model), "api_error"
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_ = json.NewEncoder(w).Encode(e)
}

// fitContext applies ContextTokens to a decoded request: Ollama keeps the
// last ContextTokens prompt tokens and goes on (so prefill and the reported
// prompt_tokens are the truncated length); vLLM refuses a prompt and
// max_tokens that together exceed it, with a 400 naming both.
func (s *Server) fitContext(req *genRequest) error {
	limit := s.cfg.ContextTokens
	if limit == 0 {
		return nil
	}
	if s.cfg.Flavor == FlavorOllama {
		req.promptTokens = min(req.promptTokens, limit)
		return nil
	}
	if total := req.promptTokens + req.outputTokens; total > limit {
		//lint:ignore ST1005 vLLM's own message, word for word, is what clients see
		return fmt.Errorf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			limit, total, req.promptTokens, req.outputTokens)
	}
	return nil
}
