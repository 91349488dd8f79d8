package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// API is the kind of serving endpoint a run talks to.
type API string

// The supported APIs: OpenAI's chat, completions, embeddings and
// Responses, Anthropic's Messages, Hugging Face TGI's generate, the
// Triton / KServe v2 HTTP generate extension and KServe v2 over gRPC
// (Triton's GRPCInferenceService, GenAI-Perf's --service-kind triton).
const (
	Chat        API = "chat"
	Completions API = "completions"
	Embeddings  API = "embeddings"
	Rankings    API = "rankings"
	Responses   API = "responses"
	Messages    API = "messages"
	TGI         API = "tgi"
	KServe      API = "kserve"
	Triton      API = "triton"
	// ImageRetrieval is GenAI-Perf's image_retrieval: pictures in, an
	// answer of numbers out (NIM's v1/infer).
	ImageRetrieval API = "image_retrieval"
)

// ParseAPI accepts an endpoint type name as given by a user.
func ParseAPI(s string) (API, error) {
	switch a := API(s); a {
	case Chat, Completions, Embeddings, Rankings, Responses, Messages, TGI, KServe, Triton, ImageRetrieval:
		return a, nil
	}
	return "", fmt.Errorf("unknown endpoint type %q, want chat, completions, embeddings, rankings, responses, messages, tgi, kserve, triton or image_retrieval", s)
}

// DefaultPath is the URL path GenAI-Perf uses for the API (for Responses
// and Messages, the path OpenAI and Anthropic serve them on). TGI and
// KServe serve a streamed and a whole answer on two routes, and KServe
// names the model in the path: TGI's /generate_stream and /generate
// (router/src/server.rs), Triton's v2/models/{model}/generate_stream and
// /generate (the generate extension, docs/protocol/extension_generate.md).
func (a API) DefaultPath(model string, stream bool) string {
	suffix := ""
	if stream {
		suffix = "_stream"
	}
	switch a {
	case TGI:
		return "/generate" + suffix
	case KServe:
		return "/v2/models/" + url.PathEscape(model) + "/generate" + suffix
	case Completions:
		return "/v1/completions"
	case Embeddings:
		return "/v1/embeddings"
	case Rankings:
		return "/v1/ranking"
	case ImageRetrieval:
		return "/v1/infer"
	case Responses:
		return "/v1/responses"
	case Messages:
		return "/v1/messages"
	}
	return "/v1/chat/completions"
}

// AnthropicVersion is the anthropic-version header every Messages request
// carries: Anthropic refuses a request without one, and 2023-06-01 is the
// version its current SDKs still send.
const AnthropicVersion = "2023-06-01"

// MessagesMaxTokens is max_tokens of a Messages request whose entry sets
// no output length: Anthropic requires the field, so a value is always
// sent, large enough that the model, not the limit, ends a typical answer.
const MessagesMaxTokens = 4096

// Field is one extra top-level body key with its JSON-encoded value; extra
// fields are written in order and replace built-in keys of the same name.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Prompt is what one request asks for, independent of the API's wire shape.
type Prompt struct {
	Text string
	// MaxTokens becomes max_tokens when > 0.
	MaxTokens int
	// MinTokens becomes min_tokens when > 0 (deterministic output length on
	// vLLM-style servers).
	MinTokens int
	// System is a system prompt sent before the conversation ("" none):
	// a system message for chat and Responses, Messages' own system field.
	System string
	// History holds the earlier turns of a conversation, oldest first; the
	// request asks for the answer to Text after them.
	History []Exchange
	// Passages are what a rankings request asks to rank against the query
	// in Text.
	Passages []string
	// Images are the pictures the new user turn carries, as URLs (data
	// URLs, or http(s) ones a server fetches); Audio its clips. With
	// either, a chat turn's content is a list of parts (contentParts).
	Images []string
	Audio  []AudioClip
}

// Exchange is one earlier turn of a conversation: what the user asked and
// what the assistant answered, exactly as the server streamed it.
type Exchange struct {
	User, Assistant string
}

// Scores reports whether the API answers with numbers, not text
// (embedding vectors, ranking scores): no stream, no tokens, and a
// request completes when its response arrives (GenAI-Perf measures only
// request latency for them).
func (a API) Scores() bool { return a == Embeddings || a == Rankings || a == ImageRetrieval }

// ReportsUsage reports whether the API's responses carry token counts:
// Triton's (HTTP generate and gRPC) and reranking responses do not, so
// counting by usage would fall back to chunks on every request.
func (a API) ReportsUsage() bool {
	return a != KServe && a != Triton && a != Rankings && a != ImageRetrieval
}

// Conversational reports whether the API takes a conversation history:
// chat, Responses and Messages carry role-tagged messages; completions,
// embeddings, TGI, KServe and Triton take one flat prompt.
func (a API) Conversational() bool {
	return a == Chat || a == Responses || a == Messages
}

// BodySpec is the per-run part of every request body.
type BodySpec struct {
	API    API
	Model  string
	Stream bool
	Extra  []Field
	// Backend is the Triton backend a triton body is shaped for,
	// TensorRTLLM ("" too) or VLLM; the other APIs ignore it.
	Backend string
}

// Body renders the JSON request body for p, keys in GenAI-Perf's order
// (messages/prompt/input, model, stream, stream_options, max_tokens,
// min_tokens, then extras). Streaming requests ask for
// stream_options.include_usage so the server's own token counts arrive.
// Responses and Messages bodies have shapes of their own (agentBody), as
// have TGI and KServe ones (generateBody).
func (s BodySpec) Body(p Prompt) []byte {
	switch s.API {
	case TGI, KServe:
		return s.generateBody(p)
	case Rankings:
		return s.rankingsBody(p)
	case ImageRetrieval:
		return s.imageRetrievalBody(p)
	case Triton:
		return s.tritonBody(p)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	w := &objectWriter{buf: &b, extra: s.Extra}
	text := jsonString(p.Text)
	switch s.API {
	case Chat:
		w.raw("messages", messages(p, true))
	case Completions:
		w.raw("prompt", text)
	case Embeddings:
		w.raw("input", "["+text+"]")
	}
	switch s.API {
	case Responses, Messages:
		s.agentBody(w, p)
	case Embeddings:
		w.raw("model", jsonString(s.Model))
	default:
		w.raw("model", jsonString(s.Model))
		if s.Stream {
			w.raw("stream", "true")
			w.raw("stream_options", `{"include_usage":true}`)
		}
		if p.MaxTokens > 0 {
			w.raw("max_tokens", strconv.Itoa(p.MaxTokens))
		}
		if p.MinTokens > 0 {
			w.raw("min_tokens", strconv.Itoa(p.MinTokens))
		}
	}
	for _, f := range s.Extra {
		w.field(f.Key, string(f.Value))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// agentBody writes the members of a Responses or a Messages body, whose
// prompt is one user turn in input / messages. Neither API has
// stream_options (Responses reports usage in response.completed, Messages
// in message_start and message_delta) nor min_tokens, which extra can
// still add for a server that takes it. The output limit is
// max_output_tokens for Responses, left out when the entry sets none, and
// max_tokens for Messages, always sent because Anthropic requires it
// (MessagesMaxTokens by default). A system prompt is Messages' top-level
// `system` field, which extra sets.
func (s BodySpec) agentBody(w *objectWriter, p Prompt) {
	if s.API == Responses {
		w.raw("input", messages(p, true))
	} else {
		w.raw("messages", messages(p, false))
	}
	w.raw("model", jsonString(s.Model))
	if s.API == Messages && p.System != "" {
		w.raw("system", jsonString(p.System))
	}
	if s.Stream {
		w.raw("stream", "true")
	}
	switch {
	case s.API == Messages && p.MaxTokens <= 0:
		w.raw("max_tokens", strconv.Itoa(MessagesMaxTokens))
	case s.API == Messages:
		w.raw("max_tokens", strconv.Itoa(p.MaxTokens))
	case p.MaxTokens > 0:
		w.raw("max_output_tokens", strconv.Itoa(p.MaxTokens))
	}
}

// rankingsBody renders a NIM reranking request, GenAI-Perf's rankings
// payload: {"query": {"text"}, "passages": [{"text"}...], "model", extra...}.
func (s BodySpec) rankingsBody(p Prompt) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	w := &objectWriter{buf: &b, extra: s.Extra}
	w.raw("query", `{"text":`+jsonString(p.Text)+`}`)
	var passages strings.Builder
	passages.WriteByte('[')
	for i, t := range p.Passages {
		if i > 0 {
			passages.WriteByte(',')
		}
		passages.WriteString(`{"text":` + jsonString(t) + `}`)
	}
	passages.WriteByte(']')
	w.raw("passages", passages.String())
	w.raw("model", jsonString(s.Model))
	for _, f := range s.Extra {
		w.field(f.Key, string(f.Value))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// messages renders a conversation as role-tagged messages: the system
// prompt first when withSystem (Messages carries it in a field of its
// own), then each earlier exchange as a user and an assistant message,
// then the new user turn. A single-turn prompt is one user message.
func messages(p Prompt, withSystem bool) string {
	var b strings.Builder
	b.WriteByte('[')
	if withSystem && p.System != "" {
		writeMessage(&b, "system", p.System)
	}
	for _, x := range p.History {
		writeMessage(&b, "user", x.User)
		writeMessage(&b, "assistant", x.Assistant)
	}
	if p.hasMedia() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`{"role":"user","content":` + contentParts(p) + `}`)
	} else {
		writeMessage(&b, "user", p.Text)
	}
	b.WriteByte(']')
	return b.String()
}

func writeMessage(b *strings.Builder, role, content string) {
	if b.Len() > 1 {
		b.WriteByte(',')
	}
	b.WriteString(`{"role":"` + role + `","content":`)
	b.WriteString(jsonString(content))
	b.WriteByte('}')
}

// objectWriter writes the members of a JSON object, skipping built-in keys
// that an extra field overrides.
type objectWriter struct {
	buf   *bytes.Buffer
	extra []Field
	n     int
}

func (w *objectWriter) raw(key, value string) {
	for _, f := range w.extra {
		if f.Key == key {
			return
		}
	}
	w.field(key, value)
}

func (w *objectWriter) field(key, value string) {
	if w.n > 0 {
		w.buf.WriteByte(',')
	}
	w.n++
	w.buf.WriteString(jsonString(key))
	w.buf.WriteByte(':')
	w.buf.WriteString(value)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
