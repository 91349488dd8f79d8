package livemetrics

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Kind is a live-metrics protocol.
type Kind string

// The protocols --live-metrics speaks.
const (
	PrometheusRW Kind = "prometheus-rw"
	OTLP         Kind = "otlp"
)

// Target is one --live-metrics KIND=URL.
type Target struct {
	Kind Kind
	URL  string
}

// ParseTarget reads KIND=URL: prometheus-rw=http://host:9090/api/v1/write
// or otlp=http://host:4318/v1/metrics (an OTLP URL without a path gets
// /v1/metrics).
func ParseTarget(s string) (Target, error) {
	kind, raw, ok := strings.Cut(s, "=")
	if !ok || (Kind(kind) != PrometheusRW && Kind(kind) != OTLP) {
		return Target{}, fmt.Errorf("got %q, want prometheus-rw=URL or otlp=URL", kind)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := "an unparsable URL"
		if err == nil {
			shown = strconv.Quote(u.Redacted())
		}
		return Target{}, fmt.Errorf("%s: got %s, want an http(s) URL such as http://127.0.0.1:9090/api/v1/write", kind, shown)
	}
	if Kind(kind) == OTLP && (u.Path == "" || u.Path == "/") {
		u.Path = "/v1/metrics"
	}
	return Target{Kind: Kind(kind), URL: u.String()}, nil
}

// String is the target as messages show it: KIND=URL without the URL's
// credentials (a receiver behind basic auth takes them in the URL; they
// never reach a log).
func (t Target) String() string {
	u, err := url.Parse(t.URL)
	if err != nil {
		return string(t.Kind) + "=<unparsable URL>"
	}
	if u.User != nil {
		u.User = url.User("redacted")
	}
	return string(t.Kind) + "=" + u.String()
}
