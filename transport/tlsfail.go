package transport

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"

	"github.com/valyala/fasthttp"
)

// tlsHandshakeError is a connection whose TLS handshake failed: nothing
// was sent, so it is a connect failure, and its message says what went
// wrong in words a user can act on — most often https:// given for a
// server that speaks plain HTTP, which Go reports as "first record does
// not look like a TLS handshake".
type tlsHandshakeError struct{ err error }

func (e *tlsHandshakeError) Error() string {
	var rh tls.RecordHeaderError
	switch {
	case errors.As(e.err, &rh) && bytes.HasPrefix(rh.RecordHeader[:], []byte("HTTP/")):
		return "TLS handshake failed: server speaks plain HTTP? It answered the handshake in HTTP; use http://"
	case errors.As(e.err, &rh):
		return "TLS handshake failed: server speaks plain HTTP? (" + e.err.Error() + ")"
	case isCertificateError(e.err):
		return "TLS handshake failed: " + e.err.Error() + " (--insecure, endpoint(insecure=True), skips verification)"
	}
	return "TLS handshake failed: " + e.err.Error()
}

func (e *tlsHandshakeError) Unwrap() error { return e.err }

// dialFailure marks a failed connect whose TLS handshake failed; other
// connect failures are returned as they are.
func dialFailure(err error) error {
	var rh tls.RecordHeaderError
	var alert tls.AlertError
	if errors.As(err, &rh) || errors.As(err, &alert) || isCertificateError(err) ||
		errors.Is(err, fasthttp.ErrTLSHandshakeTimeout) || strings.HasPrefix(err.Error(), "tls: ") {
		return &tlsHandshakeError{err}
	}
	return err
}

func isCertificateError(err error) bool {
	var verify *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &authority) || errors.As(err, &host) || errors.As(err, &invalid)
}
