package builtins

import (
	"net/netip"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/transport"
)

// The Describe functions render plan values the way a scenario writes
// them, so `llmbench check` and str() in a script show the same thing and
// a user can tell at a glance which call produced what (loads and sweeps
// render themselves: runtime.Load.String, runtime.Sweep.String). Secrets
// never appear: header values are redacted.

// DescribeEndpoint renders an endpoint as its endpoint(...) call, with
// only the arguments that differ from the defaults after url and model.
func DescribeEndpoint(e runtime.Endpoint) string {
	args := []string{"url=" + describeURLs(e), "model=" + describeModels(e), "api=" + quote(string(e.API))}
	if e.URLSelection == runtime.LeastInFlight {
		args = append(args, "url_selection="+quote(e.URLSelection))
	}
	if len(e.SourceAddrs) > 0 {
		args = append(args, "source_addresses="+describeAddrs(e.SourceAddrs))
	}
	if e.Backend != "" {
		args = append(args, "backend="+quote(e.Backend))
	}
	if e.ModelSelection == runtime.RandomModel {
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
	if e.Timeout != defaultTimeout {
		args = append(args, "timeout="+quote(durationText(e.Timeout)))
	}
	if e.Insecure {
		args = append(args, "insecure=True")
	}
	return "endpoint(" + strings.Join(append(args, describeLimits(e)...), ", ") + ")"
}

// describeLimits renders the idle timeout and size limits that differ
// from their defaults.
func describeLimits(e runtime.Endpoint) []string {
	var args []string
	if e.IdleTimeout != transport.DefaultIdleTimeout {
		args = append(args, "idle_timeout="+quote(durationText(e.IdleTimeout)))
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
func describeModels(e runtime.Endpoint) string {
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

// quote writes s as a Starlark string literal.
func quote(s string) string { return starlark.String(s).String() }

// num writes a number as a script would: 16, 0.5, 1e-06.
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// percent writes a ratio as a percentage, hiding float noise (0.07 is
// "7%", not "7.000000000000001%").
func percent(r float64) string { return strconv.FormatFloat(r*100, 'g', 12, 64) + "%" }

// durationText writes a duration compactly: "10m", "500ms", "1m30s".
func durationText(d time.Duration) string {
	s := d.String()
	s = strings.Replace(s, "m0s", "m", 1)
	s = strings.Replace(s, "h0m", "h", 1)
	return s
}

// describeURLs is the endpoint's URL, or its replicas' as a list,
// credentials removed.
func describeURLs(e runtime.Endpoint) string {
	if len(e.URLs) == 0 {
		return quote(runtime.RedactURL(e.URL))
	}
	q := make([]string, len(e.URLs))
	for i, u := range e.URLs {
		q[i] = quote(runtime.RedactURL(u))
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
