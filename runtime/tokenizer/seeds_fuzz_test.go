package tokenizer

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tinyVocab and tinyMerges are what a fuzz seed keeps of a synthetic
// tokenizer: its first tinyVocab vocabulary entries (special tokens, bytes)
// and its first tinyMerges merges with the entries they join and make. A
// seed is then ~2 KB: the synthetic files are 20–56 KB, and a fuzzer
// mutating inputs that large runs a handful of executions a second and
// spends its time minimizing each new one.
const (
	tinyVocab  = 4
	tinyMerges = 4
	tinyAdded  = 3
)

// tinyTokenizers returns each synthetic tokenizer.json of testdata cut
// down to its first tinyVocab vocabulary entries, the merges among them and
// its added tokens renumbered after them, every other component (normalizer,
// pre-tokenizer, decoder, model options) as it was: the same code paths as
// the full files, in seeds small enough to fuzz. Every one must still parse,
// so a seed never silently stops covering what it was cut from.
func tinyTokenizers(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob("testdata/synth-*.json.gz")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no synthetic tokenizers in testdata: %v", err)
	}
	var out [][]byte
	for _, p := range paths {
		tiny, err := shrinkTokenizer(gunzip(tb, p))
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		if _, err := parse(tiny); err != nil {
			tb.Fatalf("%s cut down does not parse: %v\n%s", p, err, tiny)
		}
		out = append(out, tiny)
	}
	return out
}

// shrinkTokenizer keeps the vocabulary entries with ids below tinyVocab
// and the first tinyMerges merges with their parts and results, renumbers
// the kept entries densely in their order, and keeps the added tokens: those
// inside the vocabulary with their entry's new id (dropped with it), those
// past it numbered after the kept entries.
func shrinkTokenizer(data []byte) ([]byte, error) {
	var file map[string]json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, err
	}
	var model map[string]json.RawMessage
	if err := json.Unmarshal(file["model"], &model); err != nil {
		return nil, err
	}
	var vocab map[string]int
	if err := json.Unmarshal(model["vocab"], &vocab); err != nil {
		return nil, err
	}
	var merges []json.RawMessage
	if err := json.Unmarshal(model["merges"], &merges); err != nil {
		return nil, err
	}
	var prefix string
	_ = json.Unmarshal(model["continuing_subword_prefix"], &prefix)
	keep := map[string]bool{}
	for tok, id := range vocab {
		keep[tok] = id < tinyVocab
	}
	var kept []json.RawMessage
	for _, m := range merges {
		a, b, err := mergeParts(m)
		if err != nil {
			return nil, err
		}
		ab := a + strings.TrimPrefix(b, prefix)
		if _, ok := vocab[ab]; !ok || len(kept) == tinyMerges {
			continue
		}
		keep[a], keep[b], keep[ab] = true, true, true
		kept = append(kept, m)
	}
	renumber := map[int]int{}
	var toks []string
	for tok := range vocab {
		if keep[tok] {
			toks = append(toks, tok)
		}
	}
	slices.SortFunc(toks, func(x, y string) int { return vocab[x] - vocab[y] })
	small := map[string]int{}
	for i, tok := range toks {
		small[tok], renumber[vocab[tok]] = i, i
	}
	added, err := renumberAdded(file["added_tokens"], renumber, len(vocab), len(toks))
	if err != nil {
		return nil, err
	}
	if model["vocab"], err = marshal(small); err != nil {
		return nil, err
	}
	if kept == nil {
		kept = []json.RawMessage{}
	}
	if model["merges"], err = marshal(kept); err != nil {
		return nil, err
	}
	dropNulls(model)
	if file["model"], err = marshal(model); err != nil {
		return nil, err
	}
	if added != nil {
		file["added_tokens"] = added
	}
	dropNulls(file)
	return marshal(file)
}

// dropNulls deletes the members that are null: a missing component or
// option reads as null.
func dropNulls(obj map[string]json.RawMessage) {
	for name, v := range obj {
		if bytes.Equal(v, []byte("null")) {
			delete(obj, name)
		}
	}
}

// marshal is json.Marshal without escaping <, > and &, which special
// tokens are full of: a seed is as small as it can be.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// mergeParts reads a merge written as "a b" or as a pair [a, b].
func mergeParts(m json.RawMessage) (string, string, error) {
	var pair []string
	if err := json.Unmarshal(m, &pair); err == nil && len(pair) == 2 {
		return pair[0], pair[1], nil
	}
	var s string
	if err := json.Unmarshal(m, &s); err != nil {
		return "", "", err
	}
	a, b, _ := strings.Cut(s, " ")
	return a, b, nil
}

// renumberAdded gives each added token its entry's new id when it is in
// the vocabulary (size entries), dropping it when its entry was cut, and
// the ids from next on, in their order, when it is past the vocabulary.
func renumberAdded(raw json.RawMessage, renumber map[int]int, size, next int) (json.RawMessage, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var added []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &added); err != nil {
		return nil, err
	}
	var out []map[string]json.RawMessage
	for _, a := range added {
		id, err := strconv.Atoi(string(a["id"]))
		if err != nil {
			return nil, err
		}
		n, ok := renumber[id]
		switch {
		case id >= size:
			n = next
			next++
		case !ok:
			continue
		}
		if len(out) == tinyAdded {
			break
		}
		a["id"] = json.RawMessage(strconv.Itoa(n))
		for name, v := range a {
			if bytes.Equal(v, []byte("false")) && name != "special" {
				delete(a, name) // the flags default to false
			}
		}
		out = append(out, a)
	}
	return marshal(out)
}

// TestTinyTokenizersAreSmall keeps the fuzz seeds small: each under 4 KB.
func TestTinyTokenizersAreSmall(t *testing.T) {
	for i, b := range tinyTokenizers(t) {
		if len(b) > 4<<10 {
			t.Errorf("tiny tokenizer %d is %d bytes, want at most 4 KB", i, len(b))
		}
	}
}

// edited is base with patch written over it from at (on past its end if
// the patch is longer), then cut short by cut bytes: FuzzParse mutates
// this small edit rather than a whole file, which the fuzzer would spend
// its time minimizing byte by byte. An empty base makes the patch the
// whole file. (reports/records' file targets edit their seeds the same
// way.)
func edited(base []byte, at uint32, patch []byte, cut uint32) []byte {
	pos := int(at % uint32(len(base)+1))
	data := append(bytes.Clone(base[:pos]), patch...)
	if end := pos + len(patch); end < len(base) {
		data = append(data, base[end:]...)
	}
	return data[:len(data)-int(cut%uint32(len(data)+1))]
}
