// Package dataset builds the prompts a run sends. For now it offers
// GenAI-Perf-style synthetic prompts made of built-in English words; the
// token-exact generator arrives with the tokenizer.
package dataset

import (
	"math/rand/v2"
	"strings"
)

// Entry is one prompt with the output length it asks for.
type Entry struct {
	Text string
	// Words is the prompt's length in built-in words: the requested input
	// length, since each word is one token for common BPE vocabularies.
	Words int
	// MaxTokens is the output length to request (0: let the server decide).
	MaxTokens int
	// MinTokens forces the output length on servers that honour it.
	MinTokens int
	Component string
}

// Synthetic describes GenAI-Perf's synthetic prompt source.
type Synthetic struct {
	InputMean, InputStddev   float64
	OutputMean, OutputStddev float64 // OutputMean 0: no max_tokens
	// Deterministic also sets min_tokens to the sampled output length.
	Deterministic bool
	Entries       int
	Seed          uint64
	// PrefixPrompts is the size of a pool of shared prefixes, one of which
	// is prepended to every prompt; PrefixLength is their length in words.
	PrefixPrompts, PrefixLength int
}

// Build draws the entries. Lengths follow GenAI-Perf: input
// max(0, int(gauss(mean, sd))), output max(1, int(gauss(mean, sd))).
func (s Synthetic) Build() []Entry {
	rng := rand.New(rand.NewPCG(s.Seed, s.Seed^0x5851f42d4c957f2d))
	prefixes := make([]string, s.PrefixPrompts)
	for i := range prefixes {
		prefixes[i] = words(rng, s.PrefixLength)
	}
	entries := make([]Entry, max(s.Entries, 1))
	for i := range entries {
		n := max(0, int(gauss(rng, s.InputMean, s.InputStddev)))
		e := Entry{Text: words(rng, n), Words: n}
		if len(prefixes) > 0 {
			e.Text = prefixes[rng.IntN(len(prefixes))] + " " + e.Text
			e.Words += s.PrefixLength
		}
		if s.OutputMean > 0 {
			e.MaxTokens = max(1, int(gauss(rng, s.OutputMean, s.OutputStddev)))
			if s.Deterministic {
				e.MinTokens = e.MaxTokens
			}
		}
		entries[i] = e
	}
	return entries
}

func gauss(rng *rand.Rand, mean, sd float64) float64 {
	if sd == 0 {
		return mean
	}
	return mean + sd*rng.NormFloat64()
}

// words returns n words drawn from the built-in list, space separated.
func words(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n * 6)
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(wordList[rng.IntN(len(wordList))])
	}
	return b.String()
}

// CountWords is the stand-in token count of a text: its whitespace words.
func CountWords(s string) int { return len(strings.Fields(s)) }

// wordList holds common English words that are a single token (with their
// leading space) in the Llama 3, Qwen and GPT-4o vocabularies.
var wordList = strings.Fields(`the of and to in is was for on that with as by at from his
it an were are which this be has had not but its have they first new their one two all
after who been also more time other when would into there can only during her most some
years out city school where over three may up world about such state than people about
many then made these under part film him best while year well between these back before
used team since both known through work being called life game season four war house
end series played what place later group album song music book water family old each
same high day long name line around last use until area any great small major right
number second found named five state power free black white side early local center
public set home following form several system age point around late own real light
open near north south east west king land road city field great short full body head
hand eye face word story case fact plan move page color table door room paper river
market price level model class order value issue action reason voice music money night
week month party court report policy result change rate space rule paper data test
note field board share view cost test type job club role heart sense force event focus
range stage union answer energy region period method figure member design record series`)
