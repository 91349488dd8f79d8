package sim

import (
	"fmt"
	"strings"
)

// Flavor names the server whose stream format the simulator imitates.
// Clients parse vLLM's and Ollama's streams differently enough (a role-only
// first chunk or a role on every delta, a finish-only delta or an empty
// content chunk, usage on one chunk or a zero-filled usage on every chunk)
// that a client tested against one shape alone can miscount the other.
type Flavor string

// The flavors. The zero value is vLLM's, the simulator's default.
const (
	// FlavorVLLM streams as vLLM's OpenAI server does: chat starts with a
	// role-only chunk ({"role":"assistant","content":""}), ends with a
	// finish-only {} delta, and usage comes as one usage-only chunk when
	// stream_options.include_usage is set.
	FlavorVLLM Flavor = "vllm"
	// FlavorOllama streams as Ollama's OpenAI compatibility layer does
	// (v0.17, middleware/openai.go; observed in docs/validation.md): every
	// chat delta carries "role":"assistant", there is no role-only first
	// chunk, the last content chunk is empty and carries finish_reason,
	// every event carries "system_fingerprint":"fp_ollama", and on
	// /v1/completions with include_usage every chunk carries a zero-filled
	// usage until the usage-only chunk with the real counts. Usage is sent
	// only when include_usage is set, as with vLLM.
	FlavorOllama Flavor = "ollama"
)

// ollamaFingerprint is the field Ollama puts in every response object.
const ollamaFingerprint = `"system_fingerprint":"fp_ollama",`

// validFlavor rejects a flavor the simulator does not know.
func validFlavor(f Flavor) error {
	switch f {
	case "", FlavorVLLM, FlavorOllama:
		return nil
	}
	return fmt.Errorf("flavor must be %q or %q, got %q", FlavorVLLM, FlavorOllama, string(f))
}

// Ollama's chat chunk: the role on every delta, the end an empty content
// with finish_reason; Ollama's name for reasoning text is "reasoning".
var ollamaChatShape = streamShape{
	open:          `"choices":[{"index":0,"delta":{"role":"assistant","content":"`,
	openReasoning: `"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"`,
	close:         `"},"finish_reason":null}]}`,
	finish:        `"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"length"}]}`,
}

// ollamaZeroUsage is what Ollama attaches to every /v1/completions chunk
// when include_usage is set, before the real counts at the end.
const ollamaZeroUsage = `,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`

// ollamaCompletionShape returns Ollama's text_completion chunk, whose keys
// come in another order than its chat chunk's (choices, then model and
// system_fingerprint, then usage), with the zero-filled usage on every
// chunk when the request asked for usage. It holds the model's JSON, so it
// is built per request.
func ollamaCompletionShape(includeUsage bool, modelJSON []byte) *streamShape {
	tail := `,"model":` + string(modelJSON) + `,` + strings.TrimSuffix(ollamaFingerprint, ",")
	if includeUsage {
		tail += ollamaZeroUsage
	}
	return &streamShape{
		open:     `"choices":[{"text":"`,
		close:    `","index":0,"finish_reason":null}]` + tail + `}`,
		finish:   `"choices":[{"text":"","index":0,"finish_reason":"length"}]` + tail + `}`,
		usage:    `"choices":[],"model":` + string(modelJSON) + `,` + ollamaFingerprint + `"usage":{`,
		headless: true,
	}
}

// shapeFor picks the stream shape of a request under the flavor.
func shapeFor(f Flavor, a api, includeUsage bool, modelJSON []byte) *streamShape {
	switch {
	case f == FlavorOllama && a == apiCompletions:
		return ollamaCompletionShape(includeUsage, modelJSON)
	case f == FlavorOllama:
		return &ollamaChatShape
	case a == apiCompletions:
		return &completionShape
	}
	return &chatShape
}
