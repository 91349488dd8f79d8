package sim

import (
	"cmp"
	"encoding/json"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
)

// embeddingDim is the length of every embedding: small, since tests and
// client benchmarks care about the exchange, not the vectors.
const embeddingDim = 16

// jsonSink collects a non-streaming response and writes it whole when the
// job finishes, as a server does for stream=false.
type jsonSink struct {
	j         *job
	content   []byte
	reasoning []byte
	broken    bool
}

func (s *jsonSink) begin() error { return nil }

func (s *jsonSink) token(text []byte, reasoning bool) error {
	if reasoning {
		s.reasoning = append(s.reasoning, text...)
	} else {
		s.content = append(s.content, text...)
	}
	return nil
}

// malformed marks the body to be cut in half: a 200 whose JSON is invalid.
func (s *jsonSink) malformed() error {
	s.broken = true
	return nil
}

func (s *jsonSink) finish() error {
	body, err := json.Marshal(s.body())
	if err != nil {
		return err
	}
	if s.broken {
		body = body[:len(body)/2]
	}
	s.j.w.Header().Set("Content-Type", "application/json")
	if s.j.req.api == apiTGI { // TGI counts the prompt in a header
		s.j.w.Header().Set("x-prompt-tokens", strconv.Itoa(s.j.req.promptTokens))
	}
	_, err = s.j.w.Write(body)
	return err
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// PromptTokensDetails is vLLM's with --enable-prompt-tokens-details:
	// present only when the sim has a prefix cache.
	PromptTokensDetails *promptTokensDetails `json:"prompt_tokens_details,omitempty"`
}

type promptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type message struct {
	Role             string `json:"role"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
	Content          string `json:"content"`
}

type choice struct {
	Index        int       `json:"index"`
	Message      *message  `json:"message,omitempty"`
	Text         *string   `json:"text,omitempty"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason string    `json:"finish_reason"`
	StopReason   *struct{} `json:"stop_reason"`
}

type completion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   usage    `json:"usage"`
}

type embedding struct {
	Index     int       `json:"index"`
	Object    string    `json:"object"`
	Embedding []float64 `json:"embedding"`
}

type embeddingList struct {
	ID      string      `json:"id"`
	Object  string      `json:"object"`
	Created int64       `json:"created"`
	Model   string      `json:"model"`
	Data    []embedding `json:"data"`
	Usage   usage       `json:"usage"`
}

// body is the response object of the job's API.
func (s *jsonSink) body() any {
	j := s.j
	u := usage{PromptTokens: j.req.promptTokens, CompletionTokens: j.req.outputTokens}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	switch j.req.api {
	case apiResponses:
		return s.responsesObject()
	case apiMessages:
		return s.messagesObject()
	case apiTGI, apiKServe:
		return s.generateObject()
	}
	if j.req.api == apiImageRetrieval {
		return retrievals(j.req.images)
	}
	if j.req.api == apiRankings {
		return rankingList{Rankings: j.srv.rankings(j.req.passages)}
	}
	if j.req.api == apiEmbeddings {
		return embeddingList{ID: j.id, Object: "list", Created: j.created, Model: j.srv.cfg.Model,
			Data: j.srv.embeddings(j.req.inputs), Usage: u}
	}
	if j.srv.cache != nil && !j.srv.cfg.HidePromptTokensDetails {
		u.PromptTokensDetails = &promptTokensDetails{CachedTokens: j.cached}
	}
	c := completion{ID: j.id, Object: "chat.completion", Created: j.created, Model: j.srv.cfg.Model,
		Choices: []choice{{FinishReason: "length"}}, Usage: u}
	if j.req.api == apiCompletions {
		text := string(s.content)
		c.Object, c.Choices[0].Text = "text_completion", &text
	} else {
		c.Choices[0].Message = &message{Role: "assistant", ReasoningContent: string(s.reasoning), Content: string(s.content)}
	}
	return c
}

// embeddings gives every input a unit vector seeded by Seed and the input's
// bytes, so equal inputs get equal vectors across runs and servers.
func (s *Server) embeddings(inputs []json.RawMessage) []embedding {
	out := make([]embedding, len(inputs))
	for i, in := range inputs {
		h := fnv.New64a()
		_, _ = h.Write(in)
		rng := rand.New(rand.NewPCG(uint64(s.cfg.Seed), h.Sum64()))
		v := make([]float64, embeddingDim)
		norm := 0.0
		for k := range v {
			v[k] = rng.NormFloat64()
			norm += v[k] * v[k]
		}
		for k := range v {
			v[k] /= math.Sqrt(norm)
		}
		out[i] = embedding{Index: i, Object: "embedding", Embedding: v}
	}
	return out
}

// rankingList is a NIM reranking response: the passages by descending
// logit, each with its index in the request.
type rankingList struct {
	Rankings []ranking `json:"rankings"`
}

type ranking struct {
	Index int     `json:"index"`
	Logit float64 `json:"logit"`
}

// rankings scores each passage with a logit seeded by its text, so the
// same passage always ranks the same.
func (s *Server) rankings(passages []string) []ranking {
	out := make([]ranking, len(passages))
	for i, p := range passages {
		h := fnv.New64a()
		_, _ = h.Write([]byte(p))
		out[i] = ranking{Index: i, Logit: rand.New(rand.NewPCG(uint64(s.cfg.Seed), h.Sum64())).NormFloat64() * 4}
	}
	slices.SortStableFunc(out, func(a, b ranking) int { return cmp.Compare(b.Logit, a.Logit) })
	return out
}

// apiError is the OpenAI error body.
type apiError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    int     `json:"code"`
	} `json:"error"`
}

// writeError answers with an OpenAI-style error, whose code is the HTTP
// status as vLLM reports it.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	var e apiError
	e.Error.Message, e.Error.Type, e.Error.Code = msg, typ, status
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(e)
}
