package main

import "testing"

// profile against Ollama's /v1/responses and /v1/messages (v0.17.4 serves
// both), streaming and not: every artifact is written, no request failed,
// ISL is exact under the tokenizer and the server's usage counts every
// requested token. Ollama's Responses events put "type" last and its
// message_start counts the prompt differently from its message_delta,
// which the client must read all the same.
func (rs *realServer) testAgentAPIs(t *testing.T) {
	rs.profileAPIs(t, 4, "responses", "messages")
}
