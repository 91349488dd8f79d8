package transport

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// CheckURL refuses an http(s) base URL the client could never send to:
// another scheme, no host, or a port that is not a number from 1 to 65535
// (the dial would fail for every request, and the run would look like an
// unreachable server rather than a typo). The error never repeats the URL,
// which may hold credentials; the caller names it, redacted.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL it quotes
		}
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q, want http or https", u.Scheme)
	}
	if u.Hostname() == "" {
		return errors.New("no host")
	}
	if err := checkHost(u.Hostname()); err != nil {
		return err
	}
	return checkPort(u.Port(), strings.HasSuffix(u.Host, ":"))
}

// checkHost refuses a host that url.Parse lets through but no dial can
// use: one that does not read back from host:port ("0]0000"), or holds a
// colon without being an IPv6 address (":" of an unbracketed "::1").
func checkHost(host string) error {
	h, _, err := net.SplitHostPort(net.JoinHostPort(host, "1"))
	if _, ierr := netip.ParseAddr(host); err != nil || h != host || strings.Contains(host, ":") && ierr != nil {
		return fmt.Errorf("host %q is not a host name or an IP address (an IPv6 address goes in brackets: [::1]:8000)", host)
	}
	return nil
}

// checkPort accepts an address's port: none (the scheme's), or 1 to 65535.
// A host ending in ":" names an empty port.
func checkPort(port string, colon bool) error {
	if port == "" && !colon {
		return nil
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	return nil
}

// reservedHeaders are the request headers the client sets itself, with
// why a user's value cannot replace it.
var reservedHeaders = map[string]string{
	"host": "llmbench sends the URL's host; put the name in the URL " +
		"(resolve it to the address you want in /etc/hosts to reach a virtual host)",
	"content-length":    "llmbench frames each request's body with its own length; a fixed one would cut or stall every request",
	"transfer-encoding": "llmbench frames each request's body with its own length; a transfer coding would make the server read it wrong",
}

// CheckReservedHeader refuses a header the client sets itself (Host,
// Content-Length, Transfer-Encoding, in any case), saying why.
func CheckReservedHeader(name string) error {
	if why, ok := reservedHeaders[strings.ToLower(name)]; ok {
		return fmt.Errorf("%s cannot be set: %s", name, why)
	}
	return nil
}
