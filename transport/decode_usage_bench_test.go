package transport

import "testing"

// usageChunks are the usage-bearing objects of each API with the
// server's cached-token counts, as real servers send them at a stream's
// end (chat's include_usage chunk, Responses' response.completed,
// Messages' message_start).
var usageChunks = []struct {
	name string
	api  API
	data string
}{
	{"chat", Chat, `{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1732900000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[],"usage":{"prompt_tokens":512,"total_tokens":640,"completion_tokens":128,"prompt_tokens_details":{"cached_tokens":384}}}`},
	{"responses", Responses, `{"type":"response.completed","sequence_number":42,"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-4.1","output":[],"usage":{"input_tokens":512,"input_tokens_details":{"cached_tokens":384},"output_tokens":128,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":640}}}`},
	{"messages", Messages, `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":128,"cache_creation_input_tokens":0,"cache_read_input_tokens":384,"output_tokens":1}}}`},
}

// BenchmarkDecodeUsage holds the cost of reading usage objects, cached
// tokens included: once per request, but it must not allocate either.
func BenchmarkDecodeUsage(b *testing.B) {
	for _, c := range usageChunks {
		b.Run(c.name, func(b *testing.B) {
			d := decoder{api: c.api}
			data := []byte(c.data)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
