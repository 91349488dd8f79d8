package telemetry

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// target is one URL to scrape, with the two forms of it that may be shown.
type target struct {
	// url is the URL as given, credentials included: the request needs
	// them (user:password@ becomes Basic auth; a token may sit in the
	// query). It is never printed.
	url string
	// display is what messages and reports show: scheme, host, port and
	// path, without user info, query or fragment, since secrets never
	// reach an artifact or a log (SPEC §11).
	display string
	// source is host:port, the sample's Source.
	source string
}

// parseTarget checks that raw is an http(s) URL with a host. Its errors
// never quote raw: a URL that does not parse cannot be redacted either.
func parseTarget(raw string) (target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return target{}, errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return target{}, fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.Hostname() == "" {
		return target{}, errors.New("no host")
	}
	return target{url: raw, display: displayURL(u), source: sourceOf(u)}, nil
}

// displayURL is u without credentials. It drops the whole query rather
// than guessing which parameters are secret (runtime.RedactURL keeps the
// harmless ones; this package cannot import runtime, and a metrics URL's
// query is rarely worth showing).
func displayURL(u *url.URL) string {
	v := *u
	v.User = nil
	v.RawQuery, v.ForceQuery = "", false
	v.Fragment, v.RawFragment = "", ""
	return v.String()
}

// sourceOf is host:port, with the scheme's default port when the URL has
// none, so http://gpu1/metrics and http://gpu1:80/metrics name the same
// endpoint.
func sourceOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// errorText says what went wrong without the URL net/http puts into its
// errors (with the password masked but the query whole): the caller puts
// the display URL in front.
func errorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}
