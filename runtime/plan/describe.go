package plan

import (
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/transport"
)

// DefaultTimeout is endpoint()'s timeout: long enough for a 32k-token
// answer from a slow server, short enough that a hung request ends.
const DefaultTimeout = 10 * time.Minute

// String renders the endpoint as its endpoint(...) call, with only the
// arguments that differ from the defaults after url and model; header
// values are redacted, URLs' credentials removed.
func (e Endpoint) String() string {
	args := []string{"url=" + describeURLs(e), "model=" + describeModels(e), "api=" + quote(string(e.API))}
	if e.URLSelection == LeastInFlight {
		args = append(args, "url_selection="+quote(e.URLSelection))
	}
	if len(e.SourceAddrs) > 0 {
		args = append(args, "source_addresses="+describeAddrs(e.SourceAddrs))
	}
	if e.Backend != "" {
		args = append(args, "backend="+quote(e.Backend))
	}
	if e.ModelSelection == RandomModel {
		args = append(args, "model_selection="+quote(e.ModelSelection))
	}
	if !e.Stream {
		args = append(args, "stream=False")
	}
	if len(e.Headers) > 0 {
		hs := make([]string, len(e.Headers))
		for i, h := range e.Headers {
			hs[i] = quote(h.Name) + `: "<redacted>"`
		}
		args = append(args, "headers={"+strings.Join(hs, ", ")+"}")
	}
	if len(e.Extra) > 0 {
		args = append(args, "extra="+describeFields(e.Extra))
	}
	if e.Tokenizer != "" {
		args = append(args, "tokenizer="+quote(e.Tokenizer))
	}
	if e.TokenCount != "" && e.TokenCount != "auto" {
		args = append(args, "token_count="+quote(e.TokenCount))
	}
	if e.Timeout != DefaultTimeout {
		args = append(args, "timeout="+quote(DurationText(e.Timeout)))
	}
	if e.Insecure {
		args = append(args, "insecure=True")
	}
	if e.ResetPrefixCache {
		args = append(args, "reset_prefix_cache=True")
	}
	return "endpoint(" + strings.Join(append(args, describeLimits(e)...), ", ") + ")"
}

// describeLimits renders the idle timeout and size limits that differ
// from their defaults.
func describeLimits(e Endpoint) []string {
	var args []string
	if e.IdleTimeout != transport.DefaultIdleTimeout {
		args = append(args, "idle_timeout="+quote(DurationText(e.IdleTimeout)))
	}
	if n := e.MaxResponseSize; n != 0 && n != transport.DefaultMaxResponseSize {
		args = append(args, "max_response_size="+quote(transport.FormatSize(n)))
	}
	if n := e.MaxSSELineSize; n != 0 && n != transport.DefaultMaxSSELineSize {
		args = append(args, "max_sse_line_size="+quote(transport.FormatSize(n)))
	}
	return args
}

// describeModels renders model= as given: a name, or a list of names.
func describeModels(e Endpoint) string {
	if len(e.Models) == 0 {
		return quote(e.Model)
	}
	names := make([]string, len(e.Models))
	for i, m := range e.Models {
		names[i] = quote(m)
	}
	return "[" + strings.Join(names, ", ") + "]"
}

func describeFields(fields []transport.Field) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = quote(f.Key) + ": " + string(f.Value)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// describeURLs is the endpoint's URL, or its replicas' as a list,
// credentials removed.
func describeURLs(e Endpoint) string {
	if len(e.URLs) == 0 {
		return quote(RedactURL(e.URL))
	}
	q := make([]string, len(e.URLs))
	for i, u := range e.URLs {
		q[i] = quote(RedactURL(u))
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// describeAddrs lists source addresses, a run of consecutive ones as a
// range, as they are written.
func describeAddrs(addrs []netip.Addr) string {
	var parts []string
	for i := 0; i < len(addrs); {
		j := i
		for j+1 < len(addrs) && addrs[j].Next() == addrs[j+1] {
			j++
		}
		if j > i {
			parts = append(parts, quote(addrs[i].String()+"-"+addrs[j].String()))
		} else {
			parts = append(parts, quote(addrs[i].String()))
		}
		i = j + 1
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// DurationText writes a duration compactly: "10m", "500ms", "1m30s".
func DurationText(d time.Duration) string {
	s := d.String()
	s = strings.Replace(s, "m0s", "m", 1)
	s = strings.Replace(s, "h0m", "h", 1)
	return s
}

// quote writes s as a Starlark string literal (strconv.Quote's escapes
// are Starlark's: go.starlark.net/syntax.Quote).
func quote(s string) string { return strconv.Quote(s) }
