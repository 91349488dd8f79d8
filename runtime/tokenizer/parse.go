package tokenizer

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/buger/jsonparser"
)

// parse builds a Tokenizer from the bytes of a tokenizer.json. The vocabulary
// and merges (hundreds of thousands of entries) are walked with jsonparser
// because encoding/json takes several times longer on them; the small
// component objects go through encoding/json.
//
// The document is checked whole (checkWhole) alongside: a file cut short
// or followed by garbage is refused for that, whatever else it lacks.
func parse(data []byte) (*Tokenizer, error) {
	whole := make(chan error, 1)
	go func() { whole <- checkWhole(data) }()
	model, err := parseModel(data)
	if err := <-whole; err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	t := &Tokenizer{model: model, counts: newCountCache(DefaultCountCacheSize)}
	if t.normalizer, err = buildNormalizer(rawField(data, "normalizer")); err != nil {
		return nil, err
	}
	if t.pre, err = buildPreTokenizer(rawField(data, "pre_tokenizer")); err != nil {
		return nil, err
	}
	if t.decoder, err = buildDecoder(rawField(data, "decoder")); err != nil {
		return nil, err
	}
	var added []addedToken
	if raw := rawField(data, "added_tokens"); raw != nil {
		if err := json.Unmarshal(raw, &added); err != nil {
			return nil, fmt.Errorf("added_tokens: %w", err)
		}
	}
	t.added = buildAdded(added, model, t.normalizer)
	t.vocabSize = vocabSize(model, t.added)
	return t, nil
}

// rawField returns a top-level value, or nil when it is absent or null.
func rawField(data []byte, key string) json.RawMessage {
	v, typ, _, err := jsonparser.Get(data, key)
	if err != nil || typ == jsonparser.Null {
		return nil
	}
	if typ == jsonparser.String {
		return json.RawMessage(`"` + string(v) + `"`)
	}
	return v
}

// parseModel reads the "model" object; only BPE is implemented.
func parseModel(data []byte) (*bpe, error) {
	raw, typ, _, err := jsonparser.Get(data, "model")
	if err != nil || typ != jsonparser.Object {
		return nil, errors.New(`no "model" object: not a Hugging Face tokenizer.json`)
	}
	kind, _ := jsonparser.GetString(raw, "type")
	if kind == "" {
		kind = "BPE" // files from before the tag default to BPE when they carry merges
		if _, _, _, err := jsonparser.Get(raw, "merges"); err != nil {
			return nil, errors.New(`model without "type" or "merges" is not supported`)
		}
	}
	if kind != "BPE" {
		return nil, unsupported("model", kind)
	}
	if d, err := jsonparser.GetFloat(raw, "dropout"); err == nil && d > 0 {
		return nil, fmt.Errorf("model BPE with dropout %g is not supported (its encodings are random)", d)
	}
	c := bpeConfig{}
	c.unkToken, _ = jsonparser.GetString(raw, "unk_token")
	c.fuseUnk, _ = jsonparser.GetBoolean(raw, "fuse_unk")
	c.byteFallback, _ = jsonparser.GetBoolean(raw, "byte_fallback")
	c.ignoreMerges, _ = jsonparser.GetBoolean(raw, "ignore_merges")
	c.prefix, _ = jsonparser.GetString(raw, "continuing_subword_prefix")
	c.suffix, _ = jsonparser.GetString(raw, "end_of_word_suffix")
	// The vocabulary and the merges are independent: read them on two cores.
	var vocabErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.vocab, vocabErr = parseVocab(raw)
	}()
	c.merges, err = parseMerges(raw)
	<-done
	if err = cmp.Or(vocabErr, err); err != nil {
		return nil, err
	}
	return newBPE(c)
}

func parseVocab(model []byte) (map[string]int, error) {
	vocab := make(map[string]int, 1<<17)
	err := jsonparser.ObjectEach(model, func(k, v []byte, typ jsonparser.ValueType, _ int) error {
		id, err := jsonparser.ParseInt(v)
		if err != nil || typ != jsonparser.Number || id < 0 || id > 1<<31-1 {
			return fmt.Errorf("model vocab: id of %q is not a valid id", k)
		}
		vocab[string(k)] = int(id)
		return nil
	}, "vocab")
	if err != nil {
		return nil, err
	}
	return vocab, nil
}

// parseMerges accepts both spellings: "a b" strings (split on the single
// space, "#version" lines skipped as in Rust) and ["a", "b"] pairs.
func parseMerges(model []byte) ([][2]string, error) {
	var merges [][2]string
	var perr error
	_, err := jsonparser.ArrayEach(model, func(v []byte, typ jsonparser.ValueType, _ int, _ error) {
		if perr != nil {
			return
		}
		var pair [2]string
		switch typ {
		case jsonparser.String:
			s, err := jsonparser.ParseString(v)
			if err != nil {
				perr = err
				return
			}
			if strings.HasPrefix(s, "#version") {
				return
			}
			parts := strings.Split(s, " ")
			if len(parts) != 2 {
				perr = fmt.Errorf("model merges: %q is not two tokens separated by one space", s)
				return
			}
			pair = [2]string{parts[0], parts[1]}
		case jsonparser.Array:
			pair, perr = parsePair(v)
		default:
			perr = fmt.Errorf("model merges: unexpected %s", typ)
		}
		merges = append(merges, pair)
	}, "merges")
	if perr != nil {
		return nil, perr
	}
	if err != nil && !errors.Is(err, jsonparser.KeyPathNotFoundError) {
		return nil, fmt.Errorf("model merges: %w", err)
	}
	return merges, nil
}

func parsePair(v []byte) ([2]string, error) {
	var pair [2]string
	n := 0
	var perr error
	_, err := jsonparser.ArrayEach(v, func(e []byte, typ jsonparser.ValueType, _ int, _ error) {
		s, err := jsonparser.ParseString(e)
		if err != nil || typ != jsonparser.String {
			perr = fmt.Errorf("model merges: %s is not a pair of strings", v)
		} else if n < 2 {
			pair[n] = s
		}
		n++
	})
	if err == nil && perr == nil && n != 2 {
		perr = fmt.Errorf("model merges: %s is not a pair of strings", v)
	}
	if err != nil {
		return pair, fmt.Errorf("model merges: %w", err)
	}
	return pair, perr
}

// buildAdded assigns ids the way Rust's AddedVocabulary::add_tokens does:
// a token already in the model vocabulary keeps that id, any other gets
// the next id after the model's vocabulary size, whatever "id" the JSON
// file says.
func buildAdded(tokens []addedToken, model *bpe, n normalizer) *addedVocab {
	a := &addedVocab{byID: map[int]addedToken{}, special: map[string]bool{}, decoded: map[int]string{}}
	byContent := map[string]int{}
	nextID := len(model.vocab)
	for _, tok := range tokens {
		if tok.Content == "" {
			continue
		}
		if id, ok := byContent[tok.Content]; ok && sameToken(a.byID[id], tok) {
			continue
		}
		id, ok := byContent[tok.Content]
		if !ok {
			id, ok = model.vocab[tok.Content]
		}
		if !ok {
			id = nextID
			nextID++
		}
		if tok.Normalized && n != nil {
			if s := normalizeText(n, tok.Content); s != tok.Content {
				a.decoded[id] = s
			}
		}
		byContent[tok.Content] = id
		if tok.Special {
			a.special[tok.Content] = true
		}
		tok.ID = id
		a.byID[id] = tok
	}
	a.buildTries()
	return a
}

// sameToken compares two added tokens on everything but the id, like the
// Rust AddedToken equality.
func sameToken(a, b addedToken) bool {
	a.ID, b.ID = 0, 0
	return a == b
}

// buildTries indexes the tokens for matching: normalized ones by their
// normalized spelling, the others as written.
func (a *addedVocab) buildTries() {
	ids := make([]int, 0, len(a.byID))
	for id := range a.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		tok := a.byID[id]
		if !tok.Normalized {
			if a.raw == nil {
				a.raw = newTrie()
			}
			a.raw.add(tok.Content, id)
			continue
		}
		if a.norm == nil {
			a.norm = newTrie()
		}
		s, ok := a.decoded[id]
		if !ok {
			s = tok.Content
		}
		a.norm.add(s, id)
	}
}

func vocabSize(m *bpe, a *addedVocab) int {
	n := len(m.vocabR)
	for id := range a.byID {
		n = max(n, id+1)
	}
	return n
}
