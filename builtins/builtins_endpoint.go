package builtins

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// defaultTimeout is endpoint()'s timeout (plan.DefaultTimeout).
const defaultTimeout = plan.DefaultTimeout

// endpointValue is what endpoint() returns: a plan.Endpoint, plus the
// server_metrics URLs that become the experiment's telemetry.
type endpointValue struct {
	object
	plan          plan.Endpoint
	serverMetrics []string
	// serverMetricsOff is server_metrics=False: the endpoint's own
	// /metrics is not scraped.
	serverMetricsOff bool
}

// serverMetricsParam is endpoint(server_metrics=): the URLs to scrape
// beside the endpoint's own /metrics, or False to leave that one
// unscraped (issue 28: each scrape costs vLLM's API server CPU).
type serverMetricsParam struct {
	urls stringList
	off  bool
}

func (p *serverMetricsParam) Unpack(v starlark.Value) error {
	if b, ok := v.(starlark.Bool); ok {
		if b {
			return fmt.Errorf("got True, want a list of URLs, or False to leave the endpoint's own /metrics unscraped")
		}
		p.off = true
		return nil
	}
	return p.urls.Unpack(v)
}

// endpoint(url, model, api="chat", stream=True, headers={}, extra={},
// tokenizer=None, token_count="auto", timeout="10m", server_metrics=[],
// insecure=False, model_selection="round_robin", idle_timeout="60s",
// max_response_size="256MiB", max_sse_line_size="16MiB",
// session_header=None, backend=None, url_selection="round_robin",
// source_addresses=[], reset_prefix_cache=False) describes where requests go and how they are shaped (SPEC §5). url is a string or a sim(...)
// value; model is a name or a list of names the requests are spread over
// by model_selection, as GenAI-Perf's -m a b --model-selection-strategy.
// url may be a list: replicas of one model, spread over by url_selection
// (round_robin or least_in_flight). source_addresses are local addresses
// or ranges ("127.0.0.2-127.0.0.9") the connections are bound to in turn.
// server_metrics=False leaves the endpoint's own /metrics unscraped.
// reset_prefix_cache=True empties the server's prefix cache before every
// run of every point (vLLM's POST /reset_prefix_cache, SGLang's
// /flush_cache), so back-to-back runs sending the same prompts are not
// told apart by cache hits; a reset that fails stops the run.
func endpointBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		target     starlark.Value
		model      modelNames
		api        = oneOf("chat", "chat", "completions", "embeddings", "rankings", "responses", "messages", "tgi", "kserve", "triton", "image_retrieval")
		stream     = true
		headers    stringMap
		extra      *starlark.Dict
		tokenizer  string
		tokenCount = oneOf("auto", "auto", "tokenizer", "usage", "chunks")
		timeout    = duration(defaultTimeout)
		metricURLs serverMetricsParam
		insecure   bool
		selection  = oneOf(plan.RoundRobin, plan.RoundRobin, plan.RandomModel)
		idle       = duration(transport.DefaultIdleTimeout)
		maxResp    = byteSize(transport.DefaultMaxResponseSize)
		maxLine    = byteSize(transport.DefaultMaxSSELineSize)
		sessionHdr string
		backend    = oneOf("", transport.TensorRTLLM, transport.VLLM)
		urlPick    = oneOf(plan.RoundRobin, plan.RoundRobin, plan.LeastInFlight)
		sources    starlark.Value
		reset      bool
	)
	if err := unpack(b.Name(), args, kwargs, "url", &target, "model", &model, "api?", &api,
		"stream?", &stream, "headers?", &headers, "extra?", &extra, "tokenizer??", &tokenizer,
		"token_count?", &tokenCount, "timeout?", &timeout, "server_metrics?", &metricURLs,
		"insecure?", &insecure, "model_selection?", &selection, "idle_timeout?", &idle,
		"max_response_size?", &maxResp, "max_sse_line_size?", &maxLine, "session_header??", &sessionHdr,
		"backend?", &backend, "url_selection?", &urlPick, "source_addresses?", &sources,
		"reset_prefix_cache?", &reset); err != nil {
		return nil, err
	}
	e := plan.Endpoint{Model: model[0], API: transport.API(api.value), Stream: stream,
		TokenCount: tokenCount.value, Timeout: time.Duration(timeout), Insecure: insecure,
		IdleTimeout: time.Duration(idle), MaxResponseSize: int64(maxResp), MaxSSELineSize: int64(maxLine),
		Backend: backend.value, ResetPrefixCache: reset}
	if len(model) > 1 { // a strategy means nothing for one model
		e.Models, e.ModelSelection = model, selection.value
	}
	urls, err := targetURLs(target, e.API)
	if err != nil {
		return nil, paramError(b.Name(), "url", err)
	}
	e.URL = urls[0]
	if len(urls) > 1 { // a selection means nothing for one replica
		e.URLs, e.URLSelection = urls, urlPick.value
	}
	if sources != nil {
		var specs stringList
		if err := specs.Unpack(sources); err != nil {
			return nil, paramError(b.Name(), "source_addresses", err)
		}
		if e.SourceAddrs, err = transport.ParseSourceAddresses(specs); err != nil {
			return nil, paramError(b.Name(), "source_addresses", err)
		}
		if e.API == transport.Triton {
			return nil, paramErrorf(b.Name(), "source_addresses", `got addresses with api="triton", whose gRPC connections are not bound to them; use an HTTP API`)
		}
	}
	if err := checkEndpoint(b.Name(), &e, metricURLs.urls); err != nil {
		return nil, err
	}
	for i, k := range headers.keys {
		if err := transport.CheckReservedHeader(k); err != nil {
			return nil, paramError(b.Name(), "headers", err)
		}
		e.Headers = append(e.Headers, transport.Header{Name: k, Value: headers.values[i]})
	}
	if sessionHdr != "" {
		if err := plan.CheckHeader(sessionHdr, "session"); err != nil {
			return nil, paramError(b.Name(), "session_header", err)
		}
		if err := transport.CheckReservedHeader(sessionHdr); err != nil {
			return nil, paramError(b.Name(), "session_header", err)
		}
		e.SessionHeader = sessionHdr
	}
	if e.Extra, err = jsonFields(extra); err != nil {
		return nil, paramError(b.Name(), "extra", err)
	}
	if err := checkExtraForAPI(e.API, e.Extra); err != nil {
		return nil, paramError(b.Name(), "extra", err)
	}
	if err := checkTritonExtra(&e); err != nil {
		return nil, paramError(b.Name(), "extra", err)
	}
	if e.Tokenizer, err = tokenizerPath(sessionOf(thread), tokenizer); err != nil {
		return nil, paramError(b.Name(), "tokenizer", err)
	}
	if e.TokenCount == "tokenizer" && e.Tokenizer == "" {
		return nil, paramErrorf(b.Name(), "token_count", `got "tokenizer" without a tokenizer; set tokenizer= or use "usage" or "chunks"`)
	}
	v := newEndpointValue(e, metricURLs.urls)
	if metricURLs.off {
		v.serverMetricsOff = true
		v.attrs["server_metrics"] = starlark.False
	}
	return v, nil
}

// checkEndpoint reports the first value a server could never accept.
func checkEndpoint(fn string, e *plan.Endpoint, metricURLs []string) error {
	switch {
	case e.Backend != "" && e.API != transport.Triton:
		return paramErrorf(fn, "backend", `got %q with api=%q, but backend shapes only api="triton" requests (the Triton backend's input tensors)`, e.Backend, string(e.API))
	case e.API == transport.Triton && e.Backend == "":
		e.Backend = transport.TensorRTLLM // GenAI-Perf's default
	case len(e.Models) > 0 && e.API == transport.KServe:
		return paramErrorf(fn, "model", `got %d models, but api="kserve" names the model in the URL path `+
			`(v2/models/{model}/generate), so an endpoint serves one; declare one endpoint per model`, len(e.Models))
	case len(e.Models) > 0 && e.API == transport.TGI:
		return paramErrorf(fn, "model", `got %d models, but a TGI server serves one and its requests name none; `+
			`declare one endpoint per server`, len(e.Models))
	case e.Timeout <= 0:
		return paramErrorf(fn, "timeout", "got %s, want a duration > 0", e.Timeout)
	}
	for i, u := range metricURLs {
		if err := checkHTTPURL(u); err != nil {
			return paramErrorf(fn, "server_metrics", "at index %d: %v", i, err)
		}
	}
	return nil
}

// foreignLimits are the output-limit keys of the other APIs, which
// Responses, Messages and Triton servers refuse as unknown parameters (OpenAI
// answers "Unsupported parameter", Anthropic "Extra inputs are not
// permitted"): given in extra, every request would fail, so the scenario
// is refused with the key the API does take.
var foreignLimits = map[transport.API]struct {
	keys []string
	want string
}{
	transport.Responses: {[]string{"max_tokens", "max_completion_tokens", "stream_options"}, "max_output_tokens (and no stream_options: usage comes in response.completed)"},
	transport.Messages:  {[]string{"max_completion_tokens", "max_output_tokens", "stream_options"}, "max_tokens (and no stream_options: usage comes in message_start and message_delta)"},
	// TGI ignores parameters it does not know, so the limit would be
	// silently lost; Triton refuses an input the model does not have.
	transport.TGI:    {[]string{"max_tokens", "max_completion_tokens", "max_output_tokens", "stream_options"}, "max_new_tokens (extra goes into TGI's parameters)"},
	transport.KServe: {[]string{"max_new_tokens", "max_completion_tokens", "max_output_tokens", "stream_options"}, "max_tokens (the TensorRT-LLM backend's input)"},
	transport.Triton: {[]string{"max_new_tokens", "max_completion_tokens", "max_output_tokens", "stream_options", "model"},
		"max_tokens (a TensorRT-LLM input, or a vLLM sampling parameter); the model is endpoint's model"},
}

// checkTritonExtra renders a triton request with the endpoint's extra
// fields and decodes it as the client will, so an extra no tensor can
// hold (an object, a nested list, a number too large for its type) is a
// load error rather than every request failing.
func checkTritonExtra(e *plan.Endpoint) error {
	if e.API != transport.Triton {
		return nil
	}
	spec := transport.BodySpec{API: e.API, Model: e.Model, Stream: e.Stream, Extra: e.Extra, Backend: e.Backend}
	return transport.CheckTritonBody(spec.Body(transport.Prompt{Text: "x", MaxTokens: 1, MinTokens: 1}), e.Backend)
}

// checkExtraForAPI refuses an extra key the endpoint's API does not take.
func checkExtraForAPI(api transport.API, extra []transport.Field) error {
	limits, ok := foreignLimits[api]
	if !ok {
		return nil
	}
	for _, f := range extra {
		for _, k := range limits.keys {
			if f.Key == k {
				return fmt.Errorf("got %q, which api=%q does not take; use %s", k, string(api), limits.want)
			}
		}
	}
	return nil
}

// byteSize is a size in bytes, given as an int or as a string with a unit
// ("256MiB", "16 MiB", "1GB"), as the CLI's --max-response-size takes it.
type byteSize int64

func (b *byteSize) Unpack(v starlark.Value) error {
	switch v := v.(type) {
	case starlark.Int:
		n, ok := v.Int64()
		if !ok || n <= 0 {
			return fmt.Errorf("got %s, want a size > 0 in bytes", v)
		}
		*b = byteSize(n)
		return nil
	case starlark.String:
		n, err := transport.ParseSize(string(v))
		*b = byteSize(n)
		return err
	}
	return fmt.Errorf("got %s, want int or string such as \"256MiB\"", v.Type())
}

// modelNames is endpoint()'s model: one name, or a non-empty list of names
// (GenAI-Perf's -m a b), each non-empty.
type modelNames []string

func (m *modelNames) Unpack(v starlark.Value) error {
	if s, ok := v.(starlark.String); ok {
		if s == "" {
			return errors.New("got an empty string, want the model name the server serves")
		}
		*m = modelNames{string(s)}
		return nil
	}
	if _, ok := v.(starlark.Indexable); !ok {
		return fmt.Errorf("got %s, want string or list of strings", v.Type())
	}
	var names stringList
	if err := names.Unpack(v); err != nil {
		return err
	}
	if len(names) == 0 {
		return errors.New("got an empty list, want one or more model names")
	}
	for i, n := range names {
		if n == "" {
			return fmt.Errorf("at index %d: got an empty string, want a model name", i)
		}
	}
	*m = modelNames(names)
	return nil
}

func newEndpointValue(e plan.Endpoint, serverMetrics []string) *endpointValue {
	model := str(e.Model)
	if len(e.Models) > 0 {
		model = strList(e.Models)
	}
	var url starlark.Value = str(e.URL)
	if len(e.URLs) > 0 {
		url = strList(e.URLs)
	}
	attrs := starlark.StringDict{
		"url": url, "model": model, "api": str(string(e.API)),
		"url_selection": str(orRoundRobin(e.URLSelection)), "source_addresses": addrList(e.SourceAddrs),
		"model_selection": str(orRoundRobin(e.ModelSelection)),
		"stream":          starlark.Bool(e.Stream), "tokenizer": noneOr(e.Tokenizer, str),
		"token_count": str(e.TokenCount), "timeout": str(durationText(e.Timeout)),
		"insecure": starlark.Bool(e.Insecure), "server_metrics": strList(serverMetrics),
		"idle_timeout":      str(durationText(e.IdleTimeout)),
		"max_response_size": starlark.MakeInt64(e.MaxResponseSize), "max_sse_line_size": starlark.MakeInt64(e.MaxSSELineSize),
		"backend": noneOr(e.Backend, str), "reset_prefix_cache": starlark.Bool(e.ResetPrefixCache),
	}
	return &endpointValue{object: newObject("endpoint", e.String(), attrs, false),
		plan: e, serverMetrics: serverMetrics}
}

// addrList is the source addresses as Starlark strings.
func addrList(addrs []netip.Addr) *starlark.List {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = a.String()
	}
	return strList(out)
}

// orRoundRobin names the default strategy, which an endpoint with one
// model leaves unset.
func orRoundRobin(selection string) string {
	if selection == "" {
		return plan.RoundRobin
	}
	return selection
}

// targetURLs accepts one target or a non-empty list of them, the replicas
// of one model (each sim(...) or "sim://..." a simulator of its own).
func targetURLs(v starlark.Value, api transport.API) ([]string, error) {
	list, ok := v.(*starlark.List)
	tuple, isTuple := v.(starlark.Tuple)
	if !ok && !isTuple {
		u, err := targetURL(v, api)
		return []string{u}, err
	}
	var items []starlark.Value
	if ok {
		for i := range list.Len() {
			items = append(items, list.Index(i))
		}
	} else {
		items = tuple
	}
	if len(items) == 0 {
		return nil, errors.New("got an empty list, want one or more URLs (the replicas of one model)")
	}
	urls := make([]string, len(items))
	for i, item := range items {
		u, err := targetURL(item, api)
		if err != nil {
			return nil, fmt.Errorf("at index %d: %v", i, err)
		}
		urls[i] = u
	}
	return urls, nil
}

// targetURL accepts a URL string or a sim(...) value and checks it now, so
// a typo is a load error with a position rather than a failed run.
func targetURL(v starlark.Value, api transport.API) (string, error) {
	switch v := v.(type) {
	case *simValue:
		return v.url, nil
	case starlark.String:
		s := string(v)
		if strings.HasPrefix(s, "sim://") {
			_, err := runtime.SimConfig(s)
			return s, err
		}
		if api == transport.Triton {
			_, err := transport.ParseTritonURL(s)
			return s, err
		}
		return s, checkHTTPURL(s)
	}
	return "", fmt.Errorf("got %s, want string or sim", v.Type())
}

// checkHTTPURL accepts what the transport can dial: http(s)://host[:port]
// with an optional path prefix, or GenAI-Perf's bare host:port.
func checkHTTPURL(raw string) error {
	if err := transport.CheckURL(runtime.BaseURL(raw)); err != nil {
		return fmt.Errorf("got %q, want an http:// or https:// URL, host:port, \"sim://\" or sim(...): %v", plan.RedactURL(raw), err)
	}
	return nil
}

// tokenizerPath resolves a tokenizer given as a path inside the scenario's
// folder to an absolute path, and leaves anything that is not a file there
// as a Hugging Face model id ("meta-llama/Llama-3.1-8B-Instruct"), which
// the tokenizer layer looks up in the local cache.
func tokenizerPath(s *session, name string) (string, error) {
	if name == "" || s == nil {
		return name, nil
	}
	key, err := s.files.key(".", name)
	if err != nil || filepath.IsAbs(key) {
		return key, err
	}
	_, err = s.files.root.Stat(filepath.FromSlash(key))
	looksLikeFile := strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".json")
	switch {
	case err == nil:
		return filepath.Join(s.files.dir, filepath.FromSlash(key)), nil
	case !errors.Is(err, os.ErrNotExist):
		return "", err
	case looksLikeFile:
		return "", fmt.Errorf("%s: no such file or folder", s.files.display(key))
	}
	return name, nil // a model id
}
