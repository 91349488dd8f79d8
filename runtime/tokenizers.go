package runtime

import (
	"sync"

	"github.com/llmbench/llmbench/runtime/tokenizer"
)

// tokenizers caches loaded tokenizers by source for the life of the
// process: a tokenizer.json takes a good fraction of a second to load and
// every point of a sweep uses the same one.
var tokenizers sync.Map // source@revision → *tokenizerEntry

type tokenizerEntry struct {
	once sync.Once
	tok  *tokenizer.Tokenizer
	err  error
}

// LoadTokenizer loads a tokenizer.json file, a folder holding one, or a
// Hugging Face model id from the local cache, once per source.
func LoadTokenizer(source string) (*tokenizer.Tokenizer, error) {
	return LoadTokenizerRevision(source, "")
}

// LoadTokenizerRevision is LoadTokenizer for a model id at a Hugging Face
// Hub revision (branch, tag or commit id; "" is "main"), once per source
// and revision.
func LoadTokenizerRevision(source, revision string) (*tokenizer.Tokenizer, error) {
	if revision == "" {
		revision = "main"
	}
	v, _ := tokenizers.LoadOrStore(source+"@"+revision, &tokenizerEntry{})
	e := v.(*tokenizerEntry)
	e.once.Do(func() { e.tok, e.err = tokenizer.LoadRevision(source, revision) })
	return e.tok, e.err
}
