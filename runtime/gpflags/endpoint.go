package gpflags

import (
	"net/netip"
	"strings"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// genaiPerfTypes maps GenAI-Perf's names of the endpoint types llmbench
// speaks under another name to its APIs: generate is Triton's HTTP
// generate extension (llmbench's kserve API), huggingface_generate TGI.
var genaiPerfTypes = map[string]transport.API{
	"generate":             transport.KServe,
	"huggingface_generate": transport.TGI,
	// GenAI-Perf's multimodal (and its deprecated alias vision) is chat
	// with the user turn as content parts, which a chat body carries
	// whenever a prompt has pictures or clips.
	"multimodal": transport.Chat,
	"vision":     transport.Chat,
}

// endpointAPI is the API an --endpoint-type names. GenAI-Perf's kserve is
// KServe v2 over gRPC, llmbench's triton API — not its HTTP kserve API,
// which GenAI-Perf calls generate.
func endpointAPI(typ string) (transport.API, error) {
	if api, ok := genaiPerfTypes[typ]; ok {
		return api, nil
	}
	if typ == "kserve" {
		return transport.Triton, nil
	}
	api, err := transport.ParseAPI(typ)
	if err != nil {
		return "", failure.Inputf("--endpoint-type: %w", err)
	}
	return api, nil
}

// Server is the endpoint the flags name, with everything sent to it:
// the API, headers and extra inputs, limits and the tokenizer.
func (c *Profile) Server() (plan.Endpoint, error) {
	api, err := endpointAPI(c.EndpointType)
	if err != nil {
		return plan.Endpoint{}, err
	}
	if c.ServiceKind == "triton" && api != transport.Triton {
		return plan.Endpoint{}, failure.Inputf("--endpoint-type %s: --service-kind triton speaks Triton's KServe v2 gRPC API (endpoint type kserve); "+
			"use --service-kind openai for %s", c.EndpointType, c.EndpointType)
	}
	if len(c.Model) > 1 && (api == transport.KServe || api == transport.TGI) {
		return plan.Endpoint{}, failure.Inputf("-m: got %d models, but --endpoint-type %s sends to one "+
			"(Triton's generate path names it; a TGI server serves one); run once per model", len(c.Model), c.EndpointType)
	}
	extra, err := ParseExtraInputs(c.ExtraInputs)
	if err != nil {
		return plan.Endpoint{}, err
	}
	headers, err := ParseHeaders(c.Header)
	if err != nil {
		return plan.Endpoint{}, err
	}
	if headers, err = withAPIKey(headers, c.APIKey, api); err != nil {
		return plan.Endpoint{}, err
	}
	if api == transport.Triton {
		spec := transport.BodySpec{API: api, Model: c.Model[0], Stream: c.Streaming, Extra: extra, Backend: c.Backend}
		if err := transport.CheckTritonBody(spec.Body(transport.Prompt{Text: "x", MaxTokens: 1, MinTokens: 1}), c.Backend); err != nil {
			return plan.Endpoint{}, failure.Inputf("--extra-inputs: %w", err)
		}
	}
	for _, u := range c.URL {
		if u != "sim://" && strings.HasPrefix(u, "sim://") {
			if _, err := runtime.SimConfig(u); err != nil {
				return plan.Endpoint{}, failure.Inputf("--url: %w", err)
			}
		}
	}
	maxResponse, maxLine, err := c.sizeLimits()
	if err != nil {
		return plan.Endpoint{}, err
	}
	sources, err := SourceAddresses(c.SourceAddress, api)
	if err != nil {
		return plan.Endpoint{}, err
	}
	urls, selection := replicaFlags(c.URL, c.URLSelection)
	return plan.Endpoint{
		URLs: urls, URLSelection: selection, SourceAddrs: sources,
		URL: c.URL[0], Path: c.Endpoint, API: api, Stream: c.Streaming && api != transport.Embeddings,
		Model: c.Model[0], Models: c.models(), ModelSelection: c.ModelSelectionStrategy, ModelSeed: uint64(c.RandomSeed),
		Headers: headers, Extra: extra,
		Timeout: c.RequestTimeout, IdleTimeout: c.StreamIdleTimeout, Insecure: c.Insecure,
		MaxResponseSize: maxResponse, MaxSSELineSize: maxLine,
		Tokenizer: c.Tokenizer, TokenizerRevision: c.TokenizerRevision, TokenCount: c.TokenCount,
		Backend: c.tritonBackend(api),
	}, nil
}

// tritonBackend is the Triton backend of a triton endpoint, "" otherwise
// (--backend is then only recorded in input_config).
func (c *Profile) tritonBackend(api transport.API) string {
	if api != transport.Triton {
		return ""
	}
	return c.Backend
}

// models is the list requests are spread over, nil for a single model.
func (c *Profile) models() []string {
	if len(c.Model) < 2 {
		return nil
	}
	return c.Model
}

// replicaFlags are the endpoint's replicas from repeated -u: none (and no
// selection) for one URL, as endpoint(url=...) leaves them.
func replicaFlags(urls []string, selection string) ([]string, string) {
	if len(urls) < 2 {
		return nil, ""
	}
	return urls, selection
}

// SourceAddresses parses --source-address; nil when none was given.
func SourceAddresses(specs []string, api transport.API) ([]netip.Addr, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	if api == transport.Triton {
		return nil, failure.Inputf("--source-address: Triton's gRPC connections are not bound to source addresses; use an HTTP endpoint type")
	}
	addrs, err := transport.ParseSourceAddresses(specs)
	if err != nil {
		return nil, failure.Inputf("--source-address: %w", err)
	}
	return addrs, nil
}
