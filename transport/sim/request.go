package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"unicode"
	"unicode/utf8"
)

// api is the OpenAI endpoint a request came in on.
type api int

const (
	apiChat api = iota
	apiCompletions
	apiEmbeddings
	apiResponses      // OpenAI Responses, /v1/responses
	apiMessages       // Anthropic Messages, /v1/messages
	apiTGI            // Hugging Face TGI, /generate and /generate_stream
	apiKServe         // Triton / KServe v2, /v2/models/{model}/generate[_stream]
	apiRankings       // NIM reranking, /v1/ranking (GenAI-Perf's rankings)
	apiTriton         // KServe v2 over gRPC, Triton's GRPCInferenceService
	apiImageRetrieval // GenAI-Perf's image_retrieval, /v1/infer
)

// scores reports an API that answers with numbers and no tokens.
func (a api) scores() bool { return a == apiEmbeddings || a == apiRankings || a == apiImageRetrieval }

// maxBodyBytes bounds a request body; long-context prompts fit easily.
const maxBodyBytes = 64 << 20

// wireRequest holds the request fields the sim acts on; everything else
// (temperature, min_tokens, ignore_eos, ...) is accepted and ignored, since
// the sim always generates exactly max_tokens.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	Input               json.RawMessage `json:"input"`
	System              json.RawMessage `json:"system"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MaxOutputTokens     *int            `json:"max_output_tokens"`
	Inputs              json.RawMessage `json:"inputs"`     // TGI
	TextInput           json.RawMessage `json:"text_input"` // KServe
	Query               *struct {       // rankings
		Text *string `json:"text"`
	} `json:"query"`
	Passages []struct {
		Text *string `json:"text"`
	} `json:"passages"`
	Parameters struct { // TGI
		MaxNewTokens *int `json:"max_new_tokens"`
		Details      bool `json:"details"`
	} `json:"parameters"`
	Stream        bool `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// genRequest is a decoded, validated request.
type genRequest struct {
	api          api
	model        string
	promptTokens int
	outputTokens int
	stream       bool
	includeUsage bool
	// details is TGI's parameters.details: the answer carries its counts.
	details bool
	// inputs holds each embeddings input's raw JSON, the seed of its vector.
	inputs []json.RawMessage
	// images is the number of pictures an image-retrieval request sent.
	images int
	// passages holds a rankings request's passage texts, the seeds of
	// their scores.
	passages []string
	// wire is the decoded body, which the prefix cache hashes the prompt
	// of (promptBlocks).
	wire *wireRequest
}

// decodeRequest parses and validates a body; its errors are 400 messages.
func decodeRequest(r *http.Request, a api, defaultOutput int) (genRequest, error) {
	var w wireRequest
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxBodyBytes)).Decode(&w); err != nil {
		return genRequest{}, fmt.Errorf("invalid JSON body: %v", err)
	}
	g := genRequest{api: a, model: w.Model, stream: w.Stream && !a.scores(), includeUsage: w.StreamOptions.IncludeUsage,
		details: w.Parameters.Details, wire: &w}
	var err error
	switch a {
	case apiChat:
		g.promptTokens, err = chatPromptTokens(&w)
	case apiCompletions:
		g.promptTokens, err = promptTokens("prompt", w.Prompt)
	case apiEmbeddings:
		g.inputs, g.promptTokens, err = embeddingInputs(w.Input)
	case apiResponses:
		g.promptTokens, err = responsesInputTokens(w.Input)
	case apiMessages:
		g.promptTokens, err = messagesPromptTokens(&w)
	case apiTGI:
		g.promptTokens, err = textTokens("inputs", w.Inputs)
	case apiKServe:
		g.promptTokens, err = textTokens("text_input", w.TextInput)
	case apiRankings:
		g.passages, g.promptTokens, err = rankingInputs(&w)
	case apiImageRetrieval:
		g.images, g.promptTokens, err = retrievalInputs(w.Input)
	}
	if err != nil || a.scores() {
		return g, err
	}
	switch a {
	case apiResponses:
		g.outputTokens, err = limitOrDefault("max_output_tokens", w.MaxOutputTokens, defaultOutput)
	case apiMessages:
		if w.MaxTokens == nil {
			return g, errors.New("max_tokens: Field required") // Anthropic requires it
		}
		g.outputTokens, err = limitOrDefault("max_tokens", w.MaxTokens, defaultOutput)
	case apiTGI:
		g.outputTokens, err = limitOrDefault("max_new_tokens", w.Parameters.MaxNewTokens, defaultOutput)
	case apiKServe:
		g.outputTokens, err = limitOrDefault("max_tokens", w.MaxTokens, defaultOutput)
	default:
		g.outputTokens, err = outputTokens(&w, defaultOutput)
	}
	return g, err
}

// textTokens counts a TGI or KServe prompt, which is one string.
func textTokens(field string, raw json.RawMessage) (int, error) {
	var text string
	if len(raw) == 0 || json.Unmarshal(raw, &text) != nil {
		return 0, fmt.Errorf("%s must be a string", field)
	}
	return countWords(text), nil
}

// limitOrDefault is an output limit as given, or defaultOutput when unset.
func limitOrDefault(name string, limit *int, defaultOutput int) (int, error) {
	switch {
	case limit == nil:
		return defaultOutput, nil
	case *limit < 1:
		return 0, fmt.Errorf("%s must be at least 1, got %d", name, *limit)
	}
	return *limit, nil
}

// responsesInputTokens counts a Responses input: a string, or a list of
// messages whose contents (strings or parts) count as chat's do.
func responsesInputTokens(raw json.RawMessage) (int, error) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return countWords(text), nil
	}
	w := wireRequest{}
	if err := json.Unmarshal(raw, &w.Messages); err != nil || len(w.Messages) == 0 {
		return 0, errors.New("input must be a string or a non-empty list of messages")
	}
	return chatPromptTokens(&w)
}

// messagesPromptTokens counts a Messages prompt: the messages as chat's,
// plus the top-level system prompt (a string or a list of text blocks).
func messagesPromptTokens(w *wireRequest) (int, error) {
	n, err := chatPromptTokens(w)
	if err != nil || len(w.System) == 0 {
		return n, err
	}
	var text string
	if json.Unmarshal(w.System, &text) == nil {
		return n + countWords(text), nil
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(w.System, &blocks) != nil {
		return 0, errors.New("system must be a string or a list of text blocks")
	}
	for _, b := range blocks {
		n += countWords(b.Text)
	}
	return n, nil
}

func outputTokens(w *wireRequest, defaultOutput int) (int, error) {
	name, limit := "max_tokens", w.MaxTokens
	if limit == nil {
		name, limit = "max_completion_tokens", w.MaxCompletionTokens
	}
	return limitOrDefault(name, limit, defaultOutput)
}

// chatPromptTokens counts the words of all message contents, which is the
// count of the contents joined by " ". A content may be a string or a list
// of parts: text parts count their words, pictures and audio clips their
// tokens by the sim's rule (partTokens).
func chatPromptTokens(w *wireRequest) (int, error) {
	if len(w.Messages) == 0 {
		return 0, errors.New("messages must be a non-empty list")
	}
	n := 0
	for i, m := range w.Messages {
		if len(m.Content) == 0 {
			continue // an assistant turn with only tool calls
		}
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			n += countWords(text)
			continue
		}
		k, err := messagePartsTokens(m.Content, fmt.Sprintf("messages[%d].content", i))
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// promptTokens counts a prompt given as a string (its words), a list of
// strings, a list of token ids (one token each) or a list of such lists.
func promptTokens(field string, raw json.RawMessage) (int, error) {
	items, err := promptItems(field, raw)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, item := range items {
		n += itemTokens(item)
	}
	return n, nil
}

// embeddingInputs splits `input` into the texts that each get a vector: a
// string or a flat list of token ids is one input, any other list is many.
func embeddingInputs(raw json.RawMessage) ([]json.RawMessage, int, error) {
	items, err := promptItems("input", raw)
	if err != nil {
		return nil, 0, err
	}
	if raw[0] != '[' || items[0][0] != '[' && items[0][0] != '"' {
		items = []json.RawMessage{raw}
	}
	n := 0
	for _, item := range items {
		n += itemTokens(item)
	}
	return items, n, nil
}

// promptItems returns a string as a one-item list and a non-empty list as
// its items, each a string, a token id or a list of token ids.
func promptItems(field string, raw json.RawMessage) ([]json.RawMessage, error) {
	bad := fmt.Errorf("%s must be a string or a non-empty list", field)
	if len(raw) == 0 {
		return nil, bad
	}
	if raw[0] == '"' {
		return []json.RawMessage{raw}, nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return nil, bad
	}
	for i, item := range items {
		if !validItem(item) {
			return nil, fmt.Errorf("%s[%d] must be a string, a token id or a list of token ids", field, i)
		}
	}
	return items, nil
}

// validItem switches on the first byte because json.Unmarshal accepts null
// into any type, which must not pass for a prompt.
func validItem(item json.RawMessage) bool {
	switch c := item[0]; {
	case c == '"':
		return true // the body decoder has already checked the syntax
	case c == '[':
		var ids []int
		return json.Unmarshal(item, &ids) == nil
	case c == '-' || c >= '0' && c <= '9':
		var id int
		return json.Unmarshal(item, &id) == nil
	}
	return false
}

// itemTokens counts one validated prompt item.
func itemTokens(item json.RawMessage) int {
	switch item[0] {
	case '"':
		var s string
		_ = json.Unmarshal(item, &s)
		return countWords(s)
	case '[':
		var ids []int
		_ = json.Unmarshal(item, &ids)
		return len(ids)
	}
	return 1
}

// countWords counts whitespace-separated words without allocating: the
// sim's tokenizer is one token per word.
func countWords(s string) int {
	n, inWord := 0, false
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		space := unicode.IsSpace(r)
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

// rankingInputs checks a NIM reranking body — {"query": {"text"},
// "passages": [{"text"}, ...]} — and counts its words, the query and
// every passage being prefilled together.
func rankingInputs(w *wireRequest) ([]string, int, error) {
	if w.Query == nil || w.Query.Text == nil {
		return nil, 0, errors.New(`query must be an object with a "text" string`)
	}
	if len(w.Passages) == 0 {
		return nil, 0, errors.New(`passages must be a non-empty list of {"text": ...} objects`)
	}
	n := countWords(*w.Query.Text)
	texts := make([]string, len(w.Passages))
	for i, p := range w.Passages {
		if p.Text == nil {
			return nil, 0, fmt.Errorf(`passages[%d] must have a "text" string`, i)
		}
		texts[i] = *p.Text
		n += countWords(*p.Text)
	}
	return texts, n, nil
}
