//go:build !linux

package transport

import "testing"

// fullBacklog needs Linux's accept-queue behaviour.
func fullBacklog(t *testing.T) string {
	t.Skip("full-backlog server is built for Linux only")
	return ""
}
