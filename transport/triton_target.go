package transport

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// TritonPort is Triton's gRPC port, the one a triton URL without a port
// goes to (HTTP is 8000, metrics 8002).
const TritonPort = "8001"

// TritonTarget is where a triton endpoint's gRPC requests go.
type TritonTarget struct {
	// Addr is host:port.
	Addr string
	// TLS is set for grpcs://.
	TLS bool
}

// URL is the target as llmbench names it in its outputs:
// grpc://host:port or grpcs://host:port.
func (t TritonTarget) URL() string {
	if t.TLS {
		return "grpcs://" + t.Addr
	}
	return "grpc://" + t.Addr
}

// ParseTritonURL reads a triton endpoint's address: grpc://host[:port],
// grpcs://host[:port] (TLS), or GenAI-Perf's bare host[:port] as its users
// write -u localhost:8001; the port defaults to 8001. gRPC has no path
// prefix, and http(s):// is refused, since it names Triton's HTTP port and
// API (api="kserve") rather than its gRPC one.
func ParseTritonURL(raw string) (TritonTarget, error) {
	shown := strconv.Quote(raw)
	if strings.Contains(raw, "@") { // user information, often a password: never shown
		shown = "an address with user information (not shown)"
	}
	bad := func(why string) (TritonTarget, error) {
		return TritonTarget{}, fmt.Errorf("got %s for api=\"triton\" (KServe v2 over gRPC): %s; want grpc://host:port, grpcs://host:port or host:port (Triton's gRPC port is %s)", shown, why, TritonPort)
	}
	s := strings.TrimSpace(raw)
	scheme, rest, hasScheme := strings.Cut(s, "://")
	if !hasScheme {
		scheme, rest = "grpc", s
	}
	switch scheme {
	case "grpc", "grpcs":
	case "http", "https":
		return bad(`http(s) is Triton's HTTP API, which api="kserve" speaks`)
	default:
		if strings.Contains(scheme, "@") {
			return bad("the text before :// is not a scheme")
		}
		return bad("scheme " + scheme + " is not gRPC")
	}
	u, err := url.Parse("grpc://" + rest)
	switch {
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL it quotes, credentials and all
		}
		return bad(err.Error())
	case u.Host == "" || u.Hostname() == "":
		return bad("no host")
	case u.User != nil:
		return bad("credentials in the address are not sent over gRPC; use headers")
	case strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "":
		return bad("gRPC has no path, query or fragment")
	}
	if err := checkPort(u.Port(), strings.HasSuffix(u.Host, ":")); err != nil {
		return bad(err.Error())
	}
	if err := checkHost(u.Hostname()); err != nil {
		return bad(err.Error())
	}
	port := u.Port()
	if port == "" {
		port = TritonPort
	}
	return TritonTarget{Addr: net.JoinHostPort(u.Hostname(), port), TLS: scheme == "grpcs"}, nil
}
