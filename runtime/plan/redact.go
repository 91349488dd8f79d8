package plan

import (
	"net/url"
	"regexp"
	"strings"
)

// secretParams are query parameter names (lower case, '-' read as '_')
// whose values are credentials.
var secretParams = []string{"key", "api_key", "apikey", "token", "access_token", "auth",
	"authorization", "password", "secret", "sig", "signature", "code", "x_api_key"}

// RedactURL returns rawURL without user info, fragment and credential-like
// query parameters (api_key, token, sig, …): the one function every
// artifact writer, log line and message passes a URL through, since
// secrets never reach an artifact or a log (SPEC §11). A string that does
// not parse as a URL is returned with everything from the first '?' or
// '@' removed, the safe side.
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return redactUnparsed(rawURL)
	}
	changed := u.User != nil || u.Fragment != ""
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	if u.RawQuery != "" {
		q := u.Query()
		for name := range q {
			if isSecretParam(name) {
				q.Del(name)
				changed = true
			}
		}
		u.RawQuery = q.Encode()
	}
	if !changed {
		return rawURL // nothing to strip: keep it as written (sim://?... would lose its "//")
	}
	return u.String()
}

// redactUnparsed strips what may be a secret from a URL url.Parse
// refused: the query, and user information — everything between the
// scheme's "//" and the last "@" of the authority ("http://u:pa ss@h"
// keeps "http://h"), so a password with an odd character is never cut in
// half and half shown.
func redactUnparsed(rawURL string) string {
	if i := strings.IndexByte(rawURL, '?'); i >= 0 {
		rawURL = rawURL[:i]
	}
	start := 0
	if i := strings.Index(rawURL, "//"); i >= 0 {
		start = i + 2
	}
	end := len(rawURL)
	if i := strings.IndexByte(rawURL[start:], '/'); i >= 0 {
		end = start + i
	}
	if at := strings.LastIndexByte(rawURL[start:end], '@'); at >= 0 {
		return rawURL[:start] + rawURL[start+at+1:]
	}
	return rawURL
}

func isSecretParam(name string) bool {
	n := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	for _, s := range secretParams {
		if n == s || strings.HasSuffix(n, "_"+s) {
			return true
		}
	}
	return false
}

// urlInText finds URLs inside free text: a scheme, "://", and everything
// up to a space, quote, bracket or backslash (so a URL inside a JSON log
// line or a quoted message ends where its string does).
var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>\\` + "`" + `]+`)

// RedactText is s with every URL in it passed through RedactURL: for text
// that may quote a URL (an error message from a lower layer, a log line).
func RedactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, func(m string) string {
		u := strings.TrimRight(m, ":,.;)]}") // punctuation after a URL is the sentence's
		return RedactURL(u) + m[len(u):]
	})
}
