package dataset

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Tokenizer is what token-exact prompts need from a tokenizer; the
// runtime/tokenizer package's *Tokenizer satisfies it. Encode must not add
// special tokens; Decode must skip them. A tokenizer that also has
// Count(string) int (a cached len(Encode)) is counted with it.
type Tokenizer interface {
	Encode(text string) []int
	Decode(ids []int) string
}

// WithTokenizer returns src with tok set wherever a tokenizer makes
// prompts token-exact or measures lengths — Synthetic, ShareGPT, Trace,
// and the components of a Mix — so the runtime can hand the endpoint's
// tokenizer to whatever dataset a scenario declared. Other sources are
// returned unchanged.
func WithTokenizer(src Source, tok Tokenizer) Source {
	switch s := src.(type) {
	case Synthetic:
		s.Tokenizer = tok
		return s
	case ShareGPT:
		s.Tokenizer = tok
		return s
	case Conversations:
		s.Tokenizer = tok
		return s
	case Rankings:
		s.Queries, s.Passages = WithTokenizer(s.Queries, tok), WithTokenizer(s.Passages, tok)
		return s
	case Trace:
		s.Tokenizer = tok
		return s
	case Media:
		s.Text = WithTokenizer(s.Text, tok)
		return s
	case DefaultOutputs:
		s.Source = WithTokenizer(s.Source, tok)
		return s
	case Mix:
		s.Components = slices.Clone(s.Components)
		for i, c := range s.Components {
			s.Components[i] = WithTokenizer(c, tok)
		}
		return s
	}
	return src
}

// How prompts are cut from the corpus: runs of 16 to 64 consecutive
// tokens, each starting on a word. Runs keep the text readable while
// making two prompts that start alike share at most one run, so a server's
// prefix cache is not hit by accident.
const (
	runMin = 16
	runMax = 64
	// fixAttempts bounds the re-encode-and-adjust rounds of one prompt.
	fixAttempts = 8
)

// span is n consecutive corpus tokens from position at, read cyclically.
type span struct{ at, n int }

// corpus is corpusText encoded under one tokenizer, with the positions
// where it may be cut. Tokens are joined by their decoded text in context,
// so building a prompt costs no tokenizer call; only verifying it does.
type corpus struct {
	count  func(string) int
	ids    []int
	pieces []string // pieces[i] is the text of ids[i] in running text
	// clean[i]: a cut before position i leaves both sides tokenized as
	// in the corpus — ids[i] is a whole word with its leading space.
	clean []bool
	// leads are clean positions whose word is also one token without its
	// space, so a prompt may start there and lose the space.
	leads []int
}

var corpora sync.Map // Tokenizer (pointers) → *corpus

// corpusFor returns the corpus under tok, built once per tokenizer.
func corpusFor(tok Tokenizer) (*corpus, error) {
	cacheable := reflect.TypeOf(tok).Kind() == reflect.Pointer // always comparable
	if cacheable {
		if c, ok := corpora.Load(tok); ok {
			return c.(*corpus), nil
		}
	}
	c, err := newCorpus(tok)
	if err != nil {
		return nil, err
	}
	if cacheable {
		actual, _ := corpora.LoadOrStore(tok, c)
		c = actual.(*corpus)
	}
	return c, nil
}

func newCorpus(tok Tokenizer) (*corpus, error) {
	c := &corpus{count: func(s string) int { return len(tok.Encode(s)) }}
	if counter, ok := tok.(interface{ Count(string) int }); ok {
		c.count = counter.Count
	}
	// The corpus is read cyclically, so take the ids of its second copy
	// in "T T": its end is then tokenized as followed by its start.
	once := tok.Encode(corpusText)
	twice := tok.Encode(corpusText + " " + corpusText)
	c.ids = once
	if len(twice) > len(once) && slices.Equal(twice[:len(once)], once) {
		c.ids = twice[len(once):]
	}
	if len(c.ids) == 0 {
		return nil, errors.New("the tokenizer encodes the prompt corpus to nothing")
	}
	special, _ := tok.(interface{ IsSpecial(int) bool })
	anchor := tok.Decode(once[:1])
	pieceOf := map[int]string{}
	leadOK := map[int]bool{}
	c.pieces = make([]string, len(c.ids))
	c.clean = make([]bool, len(c.ids))
	for i, id := range c.ids {
		p, seen := pieceOf[id]
		if !seen {
			p = tok.Decode([]int{once[0], id})
			if rest, ok := strings.CutPrefix(p, anchor); ok {
				p = rest
			} else {
				p = tok.Decode([]int{id})
			}
			pieceOf[id] = p
			leadOK[id] = isWordPiece(p) && len(tok.Encode(p[1:])) == 1 &&
				(special == nil || !special.IsSpecial(id))
		}
		c.pieces[i] = p
		if isWordPiece(p) && (special == nil || !special.IsSpecial(id)) {
			c.clean[i] = true
			if leadOK[id] {
				c.leads = append(c.leads, i)
			}
		}
	}
	if len(c.leads) == 0 {
		return nil, errors.New("the tokenizer has no single-token words in the prompt corpus")
	}
	return c, nil
}

// isWordPiece reports whether p is a space followed by ASCII letters.
func isWordPiece(p string) bool {
	if len(p) < 2 || p[0] != ' ' {
		return false
	}
	for i := 1; i < len(p); i++ {
		if b := p[i] | 0x20; b < 'a' || b > 'z' {
			return false
		}
	}
	return true
}

// plan draws runs totalling n tokens, each starting on a lead word and
// ending before a clean cut, appending them to dst.
func (c *corpus) plan(rng *rand.Rand, n int, dst []span) []span {
	for n > 0 {
		k := min(n, runMin+rng.IntN(runMax-runMin+1))
		dst = append(dst, c.run(rng.IntN(len(c.leads)), k))
		n -= k
	}
	return dst
}

// run returns k tokens starting at the lead from index j on whose end is
// a clean cut, so that runs concatenate without tokens merging.
func (c *corpus) run(j, k int) span {
	for tries := 0; tries < len(c.leads); tries++ {
		at := c.leads[(j+tries)%len(c.leads)]
		if c.clean[(at+k)%len(c.ids)] {
			return span{at, k}
		}
	}
	return span{c.leads[j%len(c.leads)], k}
}

// text joins the spans' pieces.
func (c *corpus) text(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		for i := range s.n {
			b.WriteString(c.pieces[(s.at+i)%len(c.ids)])
		}
	}
	return b.String()
}

// exact returns head followed by the spans' text (without its leading
// space when head is empty), adjusted until it encodes to exactly want
// tokens: the tail is shortened, or lengthened with fresh clean runs, by
// the difference, and re-encoded, for a few rounds. head is kept as is, so
// prompts sharing it share that prefix text. The adjustment is a pure
// function of the arguments.
func (c *corpus) exact(head string, spans []span, want int) (string, error) {
	spans = slices.Clone(spans)
	for attempt := range fixAttempts {
		text := head + c.text(spans)
		if head == "" {
			text = strings.TrimLeft(text, " ")
		}
		got := c.count(text)
		if got == want {
			return text, nil
		}
		if d := want - got; d > 0 {
			spans = append(spans, c.run(int(mixBits(uint64(want), uint64(attempt))%uint64(len(c.leads))), d))
		} else if spans = shrink(spans, -d); spans == nil {
			break
		}
	}
	return "", fmt.Errorf("cannot make a prompt of exactly %d tokens with this tokenizer "+
		"(re-encoding kept changing the count)", want)
}

// shrink drops the last n tokens of the spans, or returns nil when they
// hold fewer.
func shrink(spans []span, n int) []span {
	for n > 0 && len(spans) > 0 {
		last := &spans[len(spans)-1]
		if last.n > n {
			last.n -= n
			return spans
		}
		n -= last.n
		spans = spans[:len(spans)-1]
	}
	if n > 0 {
		return nil
	}
	return spans
}

// truncate keeps the first n tokens of the spans. A cut that would split
// a word backs off to the word's start and makes up the difference with a
// fresh clean run, so the result still encodes to n tokens after what
// precedes it.
func (c *corpus) truncate(spans []span, n int, key uint64) []span {
	var out []span
	for _, s := range spans {
		if n == 0 {
			break
		}
		k := min(s.n, n)
		out = append(out, span{s.at, k})
		n -= k
	}
	if len(out) == 0 {
		return out
	}
	last := &out[len(out)-1]
	back := 0
	for back < last.n && !c.clean[(last.at+last.n-back)%len(c.ids)] {
		back++
	}
	if back == 0 || back > runMin {
		return out // a clean cut, or none near: exact() adjusts
	}
	last.n -= back
	return append(out, c.run(int(key%uint64(len(c.leads))), back))
}

// mixBits hashes two numbers into one (SplitMix64's finalizer), for
// choices that must depend only on their inputs.
func mixBits(a, b uint64) uint64 {
	z := a*0x9e3779b97f4a7c15 + b + 0x632be59bd9b4e019
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// parallel runs f(0..n-1) on all cores and returns the error of the
// lowest index that failed, so the error reported does not depend on
// scheduling.
func parallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				errs[i] = f(i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
