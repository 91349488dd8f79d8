package main

import (
	"strconv"
	"testing"
)

// profile against Ollama's /v1/responses and /v1/messages (v0.17.4 serves
// both), streaming and not: every artifact is written, no request failed,
// ISL is exact under the tokenizer and the server's usage counts every
// requested token. Ollama's Responses events put "type" last and its
// message_start counts the prompt differently from its message_delta,
// which the client must read all the same.
func (rs *realServer) testAgentAPIs(t *testing.T) {
	const n, isl, osl = 4, 64, 16
	for _, api := range []string{"responses", "messages"} {
		for _, stream := range []bool{true, false} {
			name := api + "-nostream"
			if stream {
				name = api + "-stream"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				args := []string{"--endpoint-type", api, "--concurrency", "2", "--request-count", strconv.Itoa(n),
					"--synthetic-input-tokens-mean", strconv.Itoa(isl), "--output-tokens-mean", strconv.Itoa(osl),
					"--tokenizer", rs.tokenizer}
				if stream {
					args = append(args, "--streaming")
				}
				r, run := rs.profile(t, dir, args...)
				if r.code != 0 || run == "" {
					t.Fatalf("exit %d, artifacts %q\n%s%s", r.code, run, r.stdout, r.stderr)
				}
				checkArtifacts(t, run, n, isl)
				recs := checkRecords(t, run, api, stream, n, osl)
				m := genaiPerfJSON(t, run)
				t.Logf("%s profile %s: %d/%d completed, TTFT avg %s, request latency avg %s, chunks/request %.1f",
					validationMark, name, len(recs), n, jsonMS(m, "time_to_first_token"), jsonMS(m, "request_latency"), chunksPerRequest(recs))
			})
		}
	}
}
