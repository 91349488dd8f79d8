package sim

// words is the sim's whole vocabulary: plain lowercase ASCII, so a word
// never needs JSON escaping and one word is one token under any tokenizer
// a test is likely to use for counting.
var words = [...]string{
	"the", "of", "and", "to", "in", "is", "it", "that", "was", "for",
	"on", "are", "with", "as", "be", "at", "one", "have", "this", "from",
	"by", "but", "not", "what", "all", "were", "when", "we", "there", "can",
	"an", "your", "which", "their", "said", "if", "do", "will", "each", "about",
	"how", "up", "out", "them", "then", "she", "many", "some", "so", "these",
	"would", "other", "into", "has", "more", "her", "two", "like", "him", "see",
	"time", "could", "no", "make",
}

// tokenText holds each word as streamed: with its leading space, encoded
// once so generating a token costs no allocation.
var tokenText = func() [len(words)][]byte {
	var t [len(words)][]byte
	for i, w := range words {
		t[i] = []byte(" " + w)
	}
	return t
}()
