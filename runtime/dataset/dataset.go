// Package dataset builds the prompts a run sends (SPEC §4): synthetic
// prompts of sampled lengths, GenAI-Perf input files (JSONL), ShareGPT
// conversations, mooncake traces, and weighted mixtures of them.
//
// With a Tokenizer, generated prompts are token-exact: a prompt asked to
// be N tokens long encodes to exactly N tokens under that tokenizer,
// verified by re-encoding it. Without one, prompts are built from common
// English words, each about one token for common vocabularies.
//
// File datasets report a malformed file as a *LineError naming the file,
// the line and the field at fault, and every source can be checked before
// any traffic is sent.
package dataset

import "time"

// Entry is one prompt with the output length it asks for.
type Entry struct {
	Text string
	// Words is the prompt's nominal length: the exact token count of a
	// token-exact prompt, the input_length of a trace line, otherwise the
	// prompt's whitespace-separated words. It stands in for the input
	// token count when neither a tokenizer nor server usage is available.
	Words int
	// MaxTokens is the output length to request (0: let the server decide).
	MaxTokens int
	// MinTokens forces the output length on servers that honour it.
	MinTokens int
	// Component names the mix component the entry came from ("" outside a mix).
	Component string
	// At is when a replay sends the entry, from the trace's start.
	At time.Duration
	// Session and Delay carry a trace line's session_id and delay: lines
	// sharing a session are replayed as one conversation (GroupSessions).
	Session string
	Delay   time.Duration
	// Passages are the texts a rankings entry asks to rank against its
	// query (Text).
	Passages []string
	// Images and Audio are the pictures and clips a multimodal entry
	// sends beside its text (Media, or an input file's image and audio
	// fields), in order.
	Images []Image
	Audio  []Audio
}

// Source is anything that yields dataset entries.
type Source interface {
	// Build returns n entries, or the source's natural size when n <= 0
	// (a synthetic source's Entries, a file's every entry). File sources
	// given n > 0 take their first n entries, cycling through the file in
	// order when it has fewer.
	Build(n int) ([]Entry, error)
	// String describes the source for plans and reports.
	String() string
}
