package plan

import "testing"

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:8000/v1":                                  "http://localhost:8000/v1",
		"https://u:p@host/v1":                                       "https://host/v1",
		"https://host/v1?api-key=abc&x=1":                           "https://host/v1?x=1",
		"https://host/openai/deployments/d?api-version=2024&sig=zz": "https://host/openai/deployments/d?api-version=2024",
		"https://host/v1?access_token=t#x":                          "https://host/v1",
		"":                                                          "",
		"://bad@host?key=1":                                         "://host",
		"http://u:pa ss@h/v1":                                       "http://h/v1",
		"http://u:p%zz@h:1/x?k=1":                                   "http://h:1/x",
		"sim://?max_batch=4":                                        "sim://?max_batch=4",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// URLs inside messages and JSON log lines are redacted in place, the text
// around them kept.
func TestRedactText(t *testing.T) {
	for in, want := range map[string]string{
		"target unreachable: http://u:pw@h:1/?api_key=K: dial tcp": "target unreachable: http://h:1/: dial tcp",
		`{"target":"http://u:pw@h:1/v1","level":"info"}`:           `{"target":"http://h:1/v1","level":"info"}`,
		"no url here, key=1":                         "no url here, key=1",
		"two: https://a@x/ and 'https://y/?token=t'": "two: https://x/ and 'https://y/'",
	} {
		if got := RedactText(in); got != want {
			t.Errorf("RedactText(%q) =\n %q, want\n %q", in, got, want)
		}
	}
}
