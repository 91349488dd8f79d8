package runtime

import (
	"sync"

	"github.com/llmbench/llmbench/runtime/tokenizer"
)

// tokenizers caches loaded tokenizers by source for the life of the
// process: a tokenizer.json takes a good fraction of a second to load and
// every point of a sweep uses the same one.
var tokenizers sync.Map // source → *tokenizerEntry

type tokenizerEntry struct {
	once sync.Once
	tok  *tokenizer.Tokenizer
	err  error
}

// LoadTokenizer loads a tokenizer.json file, a folder holding one, or a
// Hugging Face model id from the local cache, once per source.
func LoadTokenizer(source string) (*tokenizer.Tokenizer, error) {
	v, _ := tokenizers.LoadOrStore(source, &tokenizerEntry{})
	e := v.(*tokenizerEntry)
	e.once.Do(func() { e.tok, e.err = tokenizer.Load(source) })
	return e.tok, e.err
}
