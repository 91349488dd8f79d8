package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeFile writes content to a fresh file named name and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestJSONLReadsGenAIPerfInput(t *testing.T) {
	p := writeFile(t, "in.jsonl", "\ufeff"+`{"text": "Hello there world", "output_length": 16}`+"\r\n\n"+
		`{"text_input": "What is up?", "output_length": 52.0, "priority": 3}`+"\n"+
		`{"text": "plain", "output_length": null}`)
	j := JSONL{Path: p, Shown: "data/in.jsonl"}
	entries, err := j.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Text: "Hello there world", Words: 3, MaxTokens: 16}, {Text: "What is up?", Words: 3, MaxTokens: 52},
		{Text: "plain", Words: 1}}
	if len(entries) != len(want) {
		t.Fatalf("got %d entries, want %d", len(entries), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(entries[i], want[i]) {
			t.Errorf("entry %d: %+v, want %+v", i, entries[i], want[i])
		}
	}
	if got, _ := j.Build(2); len(got) != 2 || !reflect.DeepEqual(got[1], want[1]) {
		t.Errorf("Build(2) = %+v, want the first two", got)
	}
	if got, _ := j.Build(7); len(got) != 7 || !reflect.DeepEqual(got[6], want[0]) || !reflect.DeepEqual(got[5], want[2]) {
		t.Errorf("Build(7) = %+v, want the file cycled", got)
	}
	if info, err := j.Check(); err != nil || info.Entries != 3 {
		t.Errorf("Check = %+v, %v", info, err)
	}
	if j.String() != `jsonl("data/in.jsonl")` || (JSONL{Path: "/a/b.jsonl"}).String() != `jsonl("/a/b.jsonl")` {
		t.Errorf("String = %s", j)
	}
}

// fileErrors checks that each file content fails with exactly the message
// given, in which "F" stands for the file's path.
func fileErrors(t *testing.T, name string, build func(path string) error, cases map[string]string) {
	t.Helper()
	for content, want := range cases {
		p := writeFile(t, name, content)
		err := build(p)
		if err == nil {
			t.Errorf("%q: accepted, want %s", content, want)
			continue
		}
		if got := strings.ReplaceAll(err.Error(), p, "F"); got != want {
			t.Errorf("%q:\n got %s\nwant %s", content, got, want)
		}
	}
}

func TestJSONLErrorsNameFileLineAndField(t *testing.T) {
	build := func(p string) error { _, err := JSONL{Path: p}.Build(0); return err }
	fileErrors(t, "in.jsonl", build, map[string]string{
		`{"text": "a"}` + "\n" + `{"text": "b"`:    "F:2: malformed JSON at column 12: unexpected end of JSON input",
		`{"text": "a"}` + "\n\n" + `{"text": 'b'}`: "F:3: malformed JSON at column 10: invalid character '\\'' looking for beginning of value",
		`{"text": "a"} {"text": "b"}`:              "F:1: malformed JSON at column 15: invalid character '{' after top-level value",
		`["a"]`:                                    "F:1: got a JSON array, want an object",
		`"a"`:                                      "F:1: got a JSON string, want an object",
		`{"text": "a", "text_input": "b"}`:         "F:1: text_input: given with text; want one of text or text_input",
		`{"output_length": 3}`:                     "F:1: text: missing (want text or text_input, or an image or audio)",
		`{"text": null}`:                           "F:1: text: missing (want text or text_input, or an image or audio)",
		`{"text": 42}`:                             "F:1: text: got number, want a string",
		`{"text_input": ["a"]}`:                    "F:1: text_input: got array, want a string",
		`{"text": "a"}` + "\n" + `{"text": "b", "output_length": "5"}`: `F:2: output_length: got string "5", want an integer >= 0`,
		`{"text": "a", "output_length": -1}`:                           "F:1: output_length: got -1, want an integer >= 0",
		`{"text": "a", "output_length": 2.5}`:                          "F:1: output_length: got 2.5, want an integer >= 0",
		`{"text": "a", "output_length": true}`:                         "F:1: output_length: got true, want an integer >= 0",
		"\n  \n":                                                       "F: no entries: want one JSON object per line",
	})
	if _, err := (JSONL{Path: filepath.Join(t.TempDir(), "none.jsonl")}).Build(0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	var le *LineError
	_, err := JSONL{Path: writeFile(t, "x.jsonl", `{"text": 1}`)}.Check()
	if !errors.As(err, &le) || le.Line != 1 || le.Field != "text" {
		t.Errorf("Check error %#v, want a *LineError at line 1, field text", err)
	}
}

const sharegptFile = `[
  {"id": "a", "conversations": [
    {"from": "system", "value": "be nice"},
    {"from": "human", "value": "Tell me a story"},
    {"from": "human", "value": "please"},
    {"from": "gpt", "value": "Once upon a time there was a benchmark."},
    {"from": "human", "value": "more"},
    {"from": "gpt", "value": "The end."}]},
  {"id": "b", "conversations": [{"from": "gpt", "value": "unprompted"}, {"from": "human", "value": "hi"}]},
  {"id": "c", "conversations": []},
  {"id": "d", "conversations": [{"from": "user", "value": "Hi there"}, {"from": "assistant", "value": "Hello!"}]},
  {"id": "e", "conversations": [{"from": "human", "value": ""}, {"from": "gpt", "value": "empty prompt"}]}
]`

func TestShareGPTTakesFirstHumanTurnAndItsAnswer(t *testing.T) {
	p := writeFile(t, "sg.json", sharegptFile)
	s := ShareGPT{Path: p}
	entries, err := s.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Text: "Tell me a story", Words: 4, MaxTokens: 8}, {Text: "Hi there", Words: 2, MaxTokens: 1}}
	if len(entries) != 2 || !reflect.DeepEqual(entries[0], want[0]) || !reflect.DeepEqual(entries[1], want[1]) {
		t.Fatalf("entries %+v, want %+v", entries, want)
	}
	if info, err := s.Check(); err != nil || info != (FileInfo{Entries: 2, Skipped: 3}) {
		t.Errorf("Check = %+v, %v; want 2 entries, 3 skipped", info, err)
	}
	if got, _ := s.Build(1); len(got) != 1 || !reflect.DeepEqual(got[0], want[0]) {
		t.Errorf("Build(1) = %+v", got)
	}
	if got, _ := s.Build(3); len(got) != 3 || !reflect.DeepEqual(got[2], want[0]) {
		t.Errorf("Build(3) = %+v, want the conversations cycled", got)
	}
	tk := realTokenizer(t, "llama3")
	s.Tokenizer = tk
	entries, err = s.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tk.Encode("Once upon a time there was a benchmark.")); entries[0].MaxTokens != n || entries[0].Words != 4 {
		t.Errorf("with a tokenizer: %+v, want MaxTokens %d (the answer's tokens)", entries[0], n)
	}
	if (ShareGPT{Path: p, Shown: "sg.json"}).String() != `sharegpt("sg.json")` {
		t.Error(s.String())
	}
}

func TestShareGPTErrorsNameFileLineAndField(t *testing.T) {
	build := func(p string) error { _, err := ShareGPT{Path: p}.Build(0); return err }
	ok := `{"conversations": [{"from": "human", "value": "a"}, {"from": "gpt", "value": "b"}]}`
	fileErrors(t, "sg.json", build, map[string]string{
		`{"conversations": []}`:  "F:1: got a JSON object, want an array of conversations",
		"\n\n  7":                "F:3: got a JSON number, want an array of conversations",
		"[\n" + ok + ",\n  3\n]": "F:3: [1]: got number, want a conversation object",
		"[\n" + ok + ",\n" + `  {"id": "x"}` + "\n]":                                           "F:3: [1].conversations: missing",
		"[\n" + `{"conversations": {"a": 1}}` + "\n]":                                          "F:2: [0].conversations: got object, want a list of turns",
		"[" + ok + ",\n\n" + `{"conversations": [` + "\n" + `{"from": "human", "value": 3}]}]`: "F:3: [1].conversations[0].value: got number, want a string",
		`[{"conversations": [{"value": "x"}]}]`:                                                "F:1: [0].conversations[0].from: missing",
		`[{"conversations": ["x"]}]`:                                                           "F:1: [0].conversations[0]: got string, want a turn object",
		"[\n" + ok + ",\n" + `{"conversations": [}` + "\n]":                                    "F:3: malformed JSON: invalid character '}' looking for beginning of value",
		"[\n" + ok + ",\n":     "F:2: malformed JSON: unexpected end of file",
		"[\n" + ok + "\n]\n]":  "F:4: malformed JSON: invalid character ']' looking for beginning of value",
		"[\n" + ok + "\n]\n{}": "F:4: malformed JSON: data after the array",
		"":                     "F:1: malformed JSON: unexpected end of file",
		`[{"conversations": [{"from": "gpt", "value": "x"}]}]`: "F: no conversation has a human turn followed by a gpt turn (1 skipped)",
	})
}

const wordTrace = `{"timestamp": 0, "input_length": 1024, "output_length": 20, "hash_ids": [1, 2], "session_id": "s1"}
{"timestamp": 0, "input_length": 600, "output_length": 21, "hash_ids": [1, 3], "session_id": 7, "delay": 1.5}
{"timestamp": 12.5, "input_length": 30}

{"timestamp": 3000, "text": "literal prompt here", "output_length": 5}
{"timestamp": 3001, "text_input": "other literal", "input_length": 9}
`

func TestTraceWithoutTokenizerUsesWordBlocks(t *testing.T) {
	p := writeFile(t, "trace.jsonl", wordTrace)
	tr := Trace{Path: p, Shown: "trace.jsonl", Format: "mooncake"}
	entries, err := tr.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 5 {
		t.Fatalf("%d entries, want 5", len(entries))
	}
	type meta struct {
		words, max int
		at, delay  time.Duration
		session    string
	}
	want := []meta{{1024, 20, 0, 0, "s1"}, {600, 21, 0, 1500 * time.Microsecond, "7"}, {30, 0, 12500 * time.Microsecond, 0, ""},
		{3, 5, 3 * time.Second, 0, ""}, {9, 0, 3001 * time.Millisecond, 0, ""}}
	for i, w := range want {
		e := entries[i]
		if got := (meta{e.Words, e.MaxTokens, e.At, e.Delay, e.Session}); got != w {
			t.Errorf("entry %d: %+v, want %+v", i, got, w)
		}
		if i < 3 && CountWords(e.Text) != e.Words {
			t.Errorf("entry %d: %d words, want %d", i, CountWords(e.Text), e.Words)
		}
	}
	if entries[3].Text != "literal prompt here" || entries[4].Text != "other literal" {
		t.Errorf("literal prompts: %q, %q", entries[3].Text, entries[4].Text)
	}
	// Hash id 1 is the same 512 words in both entries; 2 and 3 differ.
	a, b := strings.Fields(entries[0].Text), strings.Fields(entries[1].Text)
	if strings.Join(a[:512], " ") != strings.Join(b[:512], " ") || strings.Join(a[512:600], " ") == strings.Join(b[512:], " ") {
		t.Error("hash ids do not map to the same blocks of words")
	}
	if info, err := tr.Check(); err != nil || info != (FileInfo{Entries: 5, Timed: true}) {
		t.Errorf("Check = %+v, %v", info, err)
	}
	again, _ := tr.Build(0)
	for i := range entries {
		if !reflect.DeepEqual(entries[i], again[i]) {
			t.Fatal("same seed, different prompts")
		}
	}
	if got, _ := tr.Build(2); len(got) != 2 || !reflect.DeepEqual(got[1], entries[1]) {
		t.Errorf("Build(2) gave %d entries", len(got))
	}
	if tr.String() != `trace("trace.jsonl", format="mooncake")` || (Trace{Path: "t"}).String() != `trace("t", format="mooncake")` {
		t.Error(tr.String())
	}
	untimed := writeFile(t, "u.jsonl", `{"input_length": 3}`+"\n"+`{"input_length": 4}`)
	if info, err := (Trace{Path: untimed}).Check(); err != nil || info.Timed || info.Entries != 2 {
		t.Errorf("untimed trace: %+v, %v", info, err)
	}
}

func TestTraceErrorsNameFileLineAndField(t *testing.T) {
	build := func(p string) error { _, err := Trace{Path: p}.Build(0); return err }
	ok := `{"timestamp": 100, "input_length": 10}` + "\n"
	fileErrors(t, "t.jsonl", build, map[string]string{
		ok + `{"timestamp": 50, "input_length": 10}`:                  "F:2: timestamp: 50 ms is before the previous line's 100 ms; a trace must be in time order",
		ok + `{"input_length": 10}`:                                   "F:2: timestamp: missing, but earlier lines have one (a trace is timed on every line or on none)",
		`{"input_length": 10}` + "\n" + ok:                            "F:2: timestamp: given, but earlier lines have none (a trace is timed on every line or on none)",
		`{"timestamp": -1, "input_length": 10}`:                       "F:1: timestamp: got -1, want a number >= 0",
		`{"timestamp": "0", "input_length": 10}`:                      `F:1: timestamp: got string "0", want a number >= 0`,
		ok + `{"timestamp": 200, "output_length": 10}`:                "F:2: input_length: missing (want input_length, or a literal text or text_input)",
		`{"timestamp": 0, "input_length": 10.5}`:                      "F:1: input_length: got 10.5, want an integer >= 0",
		`{"timestamp": 0, "input_length": 1025, "hash_ids": [1, 2]}`:  "F:1: hash_ids: 2 blocks of 512 tokens cannot hold input_length 1025: the last block would get 513 tokens, want 1 to 512",
		`{"timestamp": 0, "input_length": 512, "hash_ids": [1, 2]}`:   "F:1: hash_ids: 2 blocks of 512 tokens cannot hold input_length 512: the last block would get 0 tokens, want 1 to 512",
		`{"timestamp": 0, "input_length": 512, "hash_ids": 1}`:        "F:1: hash_ids: got number, want a list of integers",
		`{"timestamp": 0, "input_length": 512, "hash_ids": [1, "2"]}`: `F:1: hash_ids[1]: got string "2", want an integer`,
		`{"timestamp": 0, "input_length": 5, "session_id": {}}`:       "F:1: session_id: got object, want a string or an integer",
		`{"timestamp": 0, "input_length": 5, "delay": -3}`:            "F:1: delay: got -3, want a number >= 0",
		// A time past what a Duration holds wrapped to a negative one and
		// passed the order check (found by FuzzTrace's seed).
		`{"timestamp": 1e300, "input_length": 1}` + "\n" + `{"timestamp": 5, "input_length": 1}`: "F:1: timestamp: 1e+300 ms is more than 9223372036853 ms (292 years)",
		`{"timestamp": 0, "input_length": 1e12}`:                                                 "F:1: input_length: 1000000000000 tokens is more than 16777216: no model reads a prompt that long, and building it would exhaust memory",
		`{"timestamp": 0, "input_length": 5, "delay": 9.3e12}`:                                   "F:1: delay: 9.3e+12 ms is more than 9223372036853 ms (292 years)",
		`{"timestamp": 0, "text": "a", "text_input": "b"}`:                                       "F:1: text_input: given with text; want one of text or text_input",
		ok + `{"timestamp": 0, "input_length": 10`:                                               "F:2: malformed JSON at column 35: unexpected end of JSON input",
	})
	if _, err := (Trace{Path: writeFile(t, "t.jsonl", ok), Format: "azure"}).Build(0); err == nil ||
		!strings.HasSuffix(err.Error(), `unknown trace format "azure", want mooncake`) {
		t.Errorf("unknown format: %v", err)
	}
}

// Under a real tokenizer every generated prompt has exactly input_length
// tokens, and a hash id is the same block text wherever it appears: each
// prompt starts with its full blocks' text, so entries sharing leading
// hash ids share that prompt prefix text.
func TestTraceHashIDsAreTokenExactSharedBlocks(t *testing.T) {
	trace := `{"timestamp": 0, "input_length": 1400, "output_length": 10, "hash_ids": [1, 2, 3]}
{"timestamp": 5, "input_length": 1300, "output_length": 10, "hash_ids": [1, 2, 4]}
{"timestamp": 9, "input_length": 1024, "hash_ids": [1, 2]}
{"timestamp": 9, "input_length": 700, "hash_ids": [5, 2]}
{"timestamp": 20, "input_length": 1, "hash_ids": [2]}
{"timestamp": 20, "input_length": 511, "hash_ids": [1]}
{"timestamp": 30, "input_length": 2000}
{"timestamp": 40, "input_length": 3, "text": "kept as written"}
`
	lengths := []int{1400, 1300, 1024, 700, 1, 511, 2000, 3}
	ids := [][]int64{{1, 2, 3}, {1, 2, 4}, {1, 2}, {5, 2}, {2}, {1}, nil, nil}
	p := writeFile(t, "t.jsonl", trace)
	for _, name := range []string{"llama3", "qwen3", "llama2"} {
		t.Run(name, func(t *testing.T) {
			tk := realTokenizer(t, name)
			tr := Trace{Path: p, Tokenizer: tk, Seed: 4}
			entries, err := tr.Build(0)
			if err != nil {
				t.Fatal(err)
			}
			c, err := corpusFor(tk)
			if err != nil {
				t.Fatal(err)
			}
			block := func(id int64) string { return c.text(c.plan(tr.blockRNG(id), BlockSize, nil)) }
			for i, e := range entries[:7] {
				if got := len(tk.Encode(e.Text)); got != lengths[i] || e.Words != lengths[i] {
					t.Errorf("entry %d: %d tokens (Words %d), want %d", i, got, e.Words, lengths[i])
				}
				var head string
				for _, id := range ids[i][:max(len(ids[i])-1, 0)] {
					head += block(id)
				}
				head = strings.TrimLeft(head, " ")
				if !strings.HasPrefix(e.Text, head) {
					t.Errorf("entry %d does not start with its full blocks' text", i)
				}
			}
			shared := strings.TrimLeft(block(1)+block(2), " ")
			if n := len(tk.Encode(shared)); n != 2*BlockSize {
				t.Errorf("blocks 1 and 2 are %d tokens together, want %d", n, 2*BlockSize)
			}
			for _, i := range []int{0, 1, 2} {
				if !strings.HasPrefix(entries[i].Text, shared) {
					t.Errorf("entry %d does not share the prefix of hash ids [1, 2]", i)
				}
			}
			if !strings.HasPrefix(block(2), " "+entries[4].Text) {
				t.Error("a one-token last block is not the start of its block")
			}
			if entries[7].Text != "kept as written" {
				t.Errorf("literal prompt: %q", entries[7].Text)
			}
			again, _ := tr.Build(0)
			for i := range entries {
				if !reflect.DeepEqual(entries[i], again[i]) {
					t.Fatalf("same seed, different entry %d", i)
				}
			}
		})
	}
}

// A mix draws from file datasets as from synthetic ones, cycling a file
// that has fewer entries than its share.
func TestMixOfFileDatasets(t *testing.T) {
	jl := JSONL{Path: writeFile(t, "a.jsonl", `{"text": "one"}`+"\n"+`{"text": "two", "output_length": 2}`)}
	tr := Trace{Path: writeFile(t, "t.jsonl", wordTrace)}
	sg := ShareGPT{Path: writeFile(t, "s.json", sharegptFile)}
	m := Mix{Components: []Source{jl, tr, sg, Synthetic{Input: Fixed{4}}}, Names: []string{"jsonl", "trace", "", "syn"},
		Weights: []float64{2, 1, 1, 1}, Seed: 3}
	entries, err := m.Build(200)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, e := range entries {
		counts[e.Component]++
		switch e.Component {
		case "jsonl":
			if e.Text != "one" && e.Text != "two" {
				t.Errorf("jsonl entry %+v", e)
			}
		case "component2":
			if e.Text != "Tell me a story" && e.Text != "Hi there" {
				t.Errorf("sharegpt entry %+v", e)
			}
		}
	}
	if len(counts) != 4 || counts["jsonl"] < 50 {
		t.Errorf("counts %v", counts)
	}
	if s := m.String(); !strings.Contains(s, `jsonl=jsonl("`) || !strings.Contains(s, `component2=sharegpt("`) {
		t.Errorf("String = %s", s)
	}
	broken := Mix{Components: []Source{JSONL{Path: writeFile(t, "b.jsonl", `{"text": 1}`)}}}
	if _, err := broken.Build(5); err == nil || !strings.Contains(err.Error(), "mix component component0: ") ||
		!strings.Contains(err.Error(), "b.jsonl:1: text: got number, want a string") {
		t.Errorf("broken component: %v", err)
	}
}
