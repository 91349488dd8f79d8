package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// seedFiles adds the repository's real dataset files (the shipped
// mooncake sample, the scenario tests' data) and hand-written lines to a
// fuzz target's corpus.
func seedFiles(f *testing.F, paths []string, lines ...string) {
	for _, p := range paths {
		b, err := os.ReadFile(filepath.FromSlash(p))
		if err != nil {
			f.Fatalf("seed %s: %v", p, err)
		}
		f.Add(b)
	}
	for _, l := range lines {
		f.Add([]byte(l))
	}
}

// fuzzFile writes data to a file of its own for one fuzz input.
func fuzzFile(t *testing.T, name string, data []byte) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// namesFile checks a reader's error names the file, as SPEC §1 wants of
// invalid input, and when it is a LineError, that its line is real.
func namesFile(t *testing.T, err error, path string, data []byte) {
	t.Helper()
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q does not name the file %s", err, path)
	}
	var le *LineError
	if errors.As(err, &le) && (le.Path != path || le.Line < 1 || le.Line > strings.Count(string(data), "\n")+1) {
		t.Fatalf("error %#v: want the file and a line in 1..%d", le, strings.Count(string(data), "\n")+1)
	}
}

// checkEntries holds every file source's promises about its entries.
func checkEntries(t *testing.T, entries []Entry, want int) {
	t.Helper()
	if len(entries) != want || want == 0 {
		t.Fatalf("Build gave %d entries, Check counted %d", len(entries), want)
	}
	for i, e := range entries {
		if !utf8.ValidString(e.Text) || !utf8.ValidString(e.Session) {
			t.Fatalf("entry %d: invalid UTF-8 in %q / %q", i, e.Text, e.Session)
		}
		if e.Words < 0 || e.MaxTokens < 0 || e.At < 0 || e.Delay < 0 {
			t.Fatalf("entry %d: negative length or time: %+v", i, e)
		}
	}
}

// FuzzJSONL: a GenAI-Perf input file is refused naming the file (and the
// line, for a bad line) or read into as many entries as Check counts.
// checkedSource is a file dataset: Check counts what Build reads.
type checkedSource interface {
	Check() (FileInfo, error)
	Build(n int) ([]Entry, error)
}

// checkAndBuild asserts that Check and Build agree on src, the file p
// holding data: both refuse it (naming the file) or Build reads as many
// entries as Check counted. ok is false when it was refused.
func checkAndBuild(t *testing.T, src checkedSource, p string, data []byte) (entries []Entry, ok bool) {
	t.Helper()
	info, err := src.Check()
	entries, berr := src.Build(0)
	if (err == nil) != (berr == nil) {
		t.Fatalf("Check: %v but Build: %v", err, berr)
	}
	if err != nil {
		namesFile(t, err, p, data)
		return nil, false
	}
	checkEntries(t, entries, info.Entries)
	return entries, true
}

func FuzzJSONL(f *testing.F) {
	seedFiles(f, []string{"../../builtins/testdata/data/prompts.jsonl", "../../builtins/testdata/data/bad_prompts.jsonl"},
		"\ufeff"+`{"text": "Hello there world", "output_length": 16}`+"\r\n\n"+`{"text_input": "What is up?", "output_length": 52.0}`,
		`{"text": "a", "text_input": "b"}`, `{"text": "x", "output_length": -1}`, `[1]`, `{"text": "\ud800"}`, "{\"text\": \"\xff\"}")
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFile(t, "in.jsonl", data)
		j := JSONL{Path: p}
		checkAndBuild(t, j, p, data)
	})
}

// FuzzTrace: a mooncake trace is refused naming the file and line, or
// read into entries in time order; prompts are built when they are small
// enough for a fuzzer (their size is input_length, which the file sets).
func FuzzTrace(f *testing.F) {
	seedFiles(f, []string{"../../scenarios/data/mooncake_sample.jsonl", "../../builtins/testdata/data/trace.jsonl",
		"../../builtins/testdata/data/untimed.jsonl", "../../builtins/testdata/data/bad_trace.jsonl"},
		`{"timestamp": 0, "text": "literal", "session_id": 7, "delay": 1.5}`+"\n"+`{"timestamp": 1e3, "input_length": 513, "hash_ids": [1, 2]}`,
		`{"timestamp": 5, "input_length": 10}`+"\n"+`{"timestamp": 4, "input_length": 10}`,
		`{"timestamp": 1e300, "input_length": 1}`+"\n"+`{"timestamp": 5, "input_length": 1}`,
		`{"input_length": 1024, "hash_ids": [1]}`, `{"input_length": 5, "hash_ids": [1.5]}`, `{"delay": -1, "input_length": 1}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFile(t, "trace.jsonl", data)
		tr := Trace{Path: p, Seed: 1}
		info, err := tr.Check()
		if err != nil {
			namesFile(t, err, p, data)
			return
		}
		lines, err := tr.read()
		if err != nil || len(lines) != info.Entries {
			t.Fatalf("read after Check: %d lines, %v; Check counted %d", len(lines), err, info.Entries)
		}
		tokens := 0
		for i, l := range lines {
			tokens += l.inputLen
			if l.hasTime != info.Timed || i > 0 && l.at < lines[i-1].at || l.at < 0 || l.delay < 0 {
				t.Fatalf("line %d: time %v (timed %v) after %v: want every line timed or none, in order, >= 0",
					l.line, l.at, l.hasTime, lines[max(i-1, 0)].at)
			}
			if k := len(l.hashIDs); k > 0 && !l.literal && (l.inputLen <= (k-1)*BlockSize || l.inputLen > k*BlockSize) {
				t.Fatalf("line %d: %d hash ids accepted for input_length %d", l.line, k, l.inputLen)
			}
		}
		if tokens > 1<<16 {
			return
		}
		entries, err := tr.Build(0)
		if err != nil {
			t.Fatalf("Build after Check: %v", err)
		}
		checkEntries(t, entries, info.Entries)
		for i, e := range entries {
			if l := lines[i]; e.At != l.at || !l.literal && len(strings.Fields(e.Text)) != l.inputLen {
				t.Fatalf("entry %d: %+v from line %+v: want its time and input_length words", i, e, l)
			}
		}
	})
}

// FuzzShareGPT: a ShareGPT file is refused naming the file, or read into
// as many conversations as Check counts, each with a prompt and an output
// length of at least one.
func FuzzShareGPT(f *testing.F) {
	seedFiles(f, []string{"../../builtins/testdata/data/sharegpt.json", "../../builtins/testdata/data/bad_sharegpt.json"},
		`[{"id": "d", "conversations": [{"from": "user", "value": "Hi there"}, {"from": "assistant", "value": "Hello!"}]}]`,
		`[{"conversations": [{"from": "gpt", "value": "x"}, {"from": "human", "value": "hi"}]}, {"conversations": []}]`,
		`{"conversations": []}`, `[{"conversations": [{"from": 1}]}]`, `[]`, `[{"conversations": null}] x`, "[\n{\"conversations\": [\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFile(t, "sharegpt.json", data)
		s := ShareGPT{Path: p}
		entries, ok := checkAndBuild(t, s, p, data)
		if !ok {
			return
		}
		for i, e := range entries {
			if e.Text == "" || e.MaxTokens < 1 {
				t.Fatalf("entry %d: %+v: want a prompt and an output length >= 1", i, e)
			}
		}
	})
}
