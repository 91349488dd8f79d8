package transport

import "testing"

// A base URL given with its version prefix, as OpenAI clients write it,
// gets the API's path once; a custom path is taken as given.
func TestTargetURL(t *testing.T) {
	for _, c := range []struct{ url, path, want string }{
		{"http://h:8000", "", "http://h:8000/v1/chat/completions"},
		{"http://h:8000/", "", "http://h:8000/v1/chat/completions"},
		{"https://api.example.com/v1", "", "https://api.example.com/v1/chat/completions"},
		{"https://api.example.com/v1/", "", "https://api.example.com/v1/chat/completions"},
		{"https://gw.example.com/openai/v1", "", "https://gw.example.com/openai/v1/chat/completions"},
		{"https://api.example.com/v1", "v1/custom", "https://api.example.com/v1/v1/custom"},
		{"http://h:8000/v10", "", "http://h:8000/v10/v1/chat/completions"},
	} {
		got, err := targetURL(Config{URL: c.url, Path: c.path, API: Chat})
		if err != nil || got != c.want {
			t.Errorf("%s + %q: got %q, %v; want %q", c.url, c.path, got, err, c.want)
		}
	}
}
