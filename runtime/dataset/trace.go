package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// BlockSize is the number of tokens one mooncake hash id stands for.
const BlockSize = 512

// MaxTraceTokens bounds a trace line's input_length: the prompt is built
// to that length, so a typo (1e12) would otherwise take all memory rather
// than be an error on its line. 2^24 is beyond any model's context.
const MaxTraceTokens = 1 << 24

// Trace is a timestamped request log in mooncake's format (GenAI-Perf's
// payload input): one JSON object per line with
//
//   - timestamp: when to send, in ms from the trace's start (→ Entry.At);
//     on every line or on none, never decreasing — a replay sends in file
//     order, so an unsorted trace is refused rather than silently reordered;
//   - text or text_input: a literal prompt, or else
//   - input_length: the prompt length in tokens, and optionally hash_ids:
//     one id per 512-token block (BlockSize), the last block holding
//     input_length − (k−1)×512 tokens, which must be in (0, 512];
//   - output_length: the max_tokens to request;
//   - session_id and delay (ms), carried in Entry.Session and Entry.Delay.
//
// Other keys are ignored. A hash id stands for the same block text in
// every entry, so entries sharing leading hash ids share the same prompt
// prefix text, as the prefix-cache behaviour the trace recorded needs.
// With a Tokenizer the blocks and prompts are token-exact; without one a
// block is 512 built-in words.
type Trace struct {
	Path  string
	Shown string
	// Format is the line format; only "mooncake" ("" means mooncake).
	Format string
	// Seed chooses the text of each hash id's block and of generated
	// prompts.
	Seed uint64
	// Tokenizer, when set, makes generated prompts token-exact.
	Tokenizer Tokenizer
	// DelayRatio scales every line's delay (GenAI-Perf's
	// --session-delay-ratio); 0 means 1.
	DelayRatio float64
}

// traceLine is a parsed line before its prompt is built.
type traceLine struct {
	line      int
	text      string
	literal   bool
	inputLen  int
	hashIDs   []int64
	outputLen int
	at, delay time.Duration
	session   string
	hasTime   bool
}

// Build reads the trace and builds its prompts: every line when n <= 0,
// else the first n lines, cycling through the trace when it has fewer
// (timestamps are kept as they are, so a replay should ask for n <= 0).
func (t Trace) Build(n int) ([]Entry, error) {
	lines, err := t.read()
	if err != nil {
		return nil, err
	}
	if n > 0 && n < len(lines) {
		lines = lines[:n]
	}
	var entries []Entry
	if t.Tokenizer != nil {
		entries, err = t.exactPrompts(lines)
	} else {
		entries = t.wordPrompts(lines)
	}
	if err != nil {
		return nil, err
	}
	return cycle(entries, n), nil
}

// Check reads the whole trace and reports its first problem, as Build
// would, without building prompts.
func (t Trace) Check() (FileInfo, error) {
	lines, err := t.read()
	if err != nil {
		return FileInfo{}, err
	}
	return FileInfo{Entries: len(lines), Timed: lines[0].hasTime}, nil
}

func (t Trace) read() ([]traceLine, error) {
	if t.Format != "" && t.Format != "mooncake" {
		return nil, fmt.Errorf("%s: unknown trace format %q, want mooncake", t.Path, t.Format)
	}
	var lines []traceLine
	err := eachLine(t.Path, func(line int, text []byte) error {
		r, err := parseRecord(t.Path, line, text)
		if err != nil {
			return err
		}
		l, err := parseTraceLine(r)
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			if err := inOrder(r, lines[len(lines)-1], l); err != nil {
				return err
			}
		}
		lines = append(lines, l)
		return nil
	})
	if err == nil && len(lines) == 0 {
		err = fmt.Errorf("%s: no entries: want one JSON object per line", t.Path)
	}
	return lines, err
}

// inOrder checks that timestamps are on every line or none, and never go
// back in time.
func inOrder(r *record, prev, l traceLine) error {
	switch {
	case prev.hasTime && !l.hasTime:
		return r.errorf("timestamp", "missing, but earlier lines have one (a trace is timed on every line or on none)")
	case !prev.hasTime && l.hasTime:
		return r.errorf("timestamp", "given, but earlier lines have none (a trace is timed on every line or on none)")
	case l.at < prev.at:
		return r.errorf("timestamp", "%s ms is before the previous line's %s ms; a trace must be in time order",
			ms(l.at), ms(prev.at))
	}
	return nil
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64)
}

func parseTraceLine(r *record) (traceLine, error) {
	l := traceLine{line: r.line}
	var err error
	if l.text, l.literal, err = r.prompt(); err != nil {
		return l, err
	}
	var hasInput bool
	if l.inputLen, hasInput, err = r.count("input_length"); err != nil {
		return l, err
	}
	if l.hashIDs, _, err = r.ints("hash_ids"); err != nil {
		return l, err
	}
	if l.outputLen, _, err = r.count("output_length"); err != nil {
		return l, err
	}
	if l.at, l.hasTime, err = r.millis("timestamp"); err != nil {
		return l, err
	}
	if l.delay, _, err = r.millis("delay"); err != nil {
		return l, err
	}
	if l.session, err = r.id("session_id"); err != nil {
		return l, err
	}
	switch {
	case l.inputLen > MaxTraceTokens:
		return l, r.errorf("input_length", "%d tokens is more than %d: no model reads a prompt that long, and building it would exhaust memory", l.inputLen, MaxTraceTokens)
	case l.literal:
	case !hasInput:
		return l, r.errorf("input_length", "missing (want input_length, or a literal text or text_input)")
	case len(l.hashIDs) > 0:
		last := l.inputLen - (len(l.hashIDs)-1)*BlockSize
		if last <= 0 || last > BlockSize {
			return l, r.errorf("hash_ids", "%d blocks of %d tokens cannot hold input_length %d: the last block would get %d tokens, want 1 to %d",
				len(l.hashIDs), BlockSize, l.inputLen, last, BlockSize)
		}
	}
	return l, nil
}

// maxMillis is the longest time a trace may give: what a time.Duration
// holds (292 years), beyond which the conversion would wrap to a negative
// time and pass the time-order check.
const maxMillis = float64(math.MaxInt64/int64(time.Millisecond)) - 1

// millis reads an optional time in ms >= 0 as a duration.
func (r *record) millis(field string) (time.Duration, bool, error) {
	v, ok, err := r.number(field)
	if err != nil || !ok {
		return 0, ok, err
	}
	if v > maxMillis {
		return 0, false, r.errorf(field, "%s ms is more than %.0f ms (292 years)", strconv.FormatFloat(v, 'g', -1, 64), maxMillis)
	}
	return msDuration(v), true, nil
}

func msDuration(v float64) time.Duration {
	return time.Duration(math.Round(v * float64(time.Millisecond)))
}

// entry is the line's entry without its generated prompt, its delay
// scaled by delayRatio when that is set.
func (l traceLine) entry(delayRatio float64) Entry {
	e := Entry{Text: l.text, Words: l.inputLen, MaxTokens: l.outputLen, At: l.at, Delay: l.delay, Session: l.session}
	if delayRatio > 0 {
		e.Delay = time.Duration(float64(l.delay) * delayRatio)
	}
	if l.literal && l.inputLen == 0 {
		e.Words = CountWords(l.text)
	}
	return e
}

// lineRNG seeds the generator of one line's prompt.
func (t Trace) lineRNG(line int) *rand.Rand {
	return rand.New(rand.NewPCG(t.Seed, mixBits(uint64(line), 0x7261636574)))
}

// blockRNG seeds the generator of one hash id's block.
func (t Trace) blockRNG(id int64) *rand.Rand {
	return rand.New(rand.NewPCG(t.Seed^0x626c6f636b, mixBits(uint64(id), 0x68617368)))
}

// wordPrompts builds prompts of built-in words: a block is 512 words, the
// last block of a line the first words of its block.
func (t Trace) wordPrompts(lines []traceLine) []Entry {
	blocks := map[int64][]string{}
	entries := make([]Entry, len(lines))
	for i, l := range lines {
		e := l.entry(t.DelayRatio)
		switch {
		case l.literal:
		case len(l.hashIDs) == 0:
			e.Text = words(t.lineRNG(l.line), l.inputLen)
		default:
			parts := make([]string, 0, l.inputLen)
			for k, id := range l.hashIDs {
				b, ok := blocks[id]
				if !ok {
					b = strings.Fields(words(t.blockRNG(id), BlockSize))
					blocks[id] = b
				}
				if k == len(l.hashIDs)-1 {
					b = b[:l.inputLen-k*BlockSize]
				}
				parts = append(parts, b...)
			}
			e.Text = strings.Join(parts, " ")
		}
		entries[i] = e
	}
	return entries
}

// exactPrompts builds token-exact prompts. Each hash id's block is planned
// once (from the seed and the id alone, whatever the order it appears in)
// as runs of exactly 512 tokens with clean cuts; a prompt is its full
// blocks' text followed by its last block's first tokens, the last block
// being adjusted until the whole prompt encodes to exactly input_length
// tokens. Full blocks are never adjusted, so they are the shared prefix.
func (t Trace) exactPrompts(lines []traceLine) ([]Entry, error) {
	c, err := corpusFor(t.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Path, err)
	}
	plans := map[int64][]span{}
	texts := map[int64]string{}
	for _, l := range lines {
		for _, id := range l.hashIDs {
			if _, ok := plans[id]; !ok && !l.literal {
				plans[id] = c.plan(t.blockRNG(id), BlockSize, nil)
				texts[id] = c.text(plans[id])
			}
		}
	}
	entries := make([]Entry, len(lines))
	err = parallel(len(lines), func(i int) (err error) {
		l := lines[i]
		e := l.entry(t.DelayRatio)
		switch {
		case l.literal:
		case len(l.hashIDs) == 0:
			e.Text, err = c.exact("", c.plan(t.lineRNG(l.line), l.inputLen, nil), l.inputLen)
		default:
			k := len(l.hashIDs) - 1
			var head strings.Builder
			for _, id := range l.hashIDs[:k] {
				head.WriteString(texts[id])
			}
			last := l.hashIDs[k]
			tail := c.truncate(plans[last], l.inputLen-k*BlockSize, mixBits(uint64(last), uint64(l.inputLen)))
			e.Text, err = c.exact(strings.TrimLeft(head.String(), " "), tail, l.inputLen)
		}
		if err != nil {
			return &LineError{Path: t.Path, Line: l.line, Field: "input_length", Msg: err.Error()}
		}
		entries[i] = e
		return nil
	})
	return entries, err
}

func (t Trace) String() string {
	format := t.Format
	if format == "" {
		format = "mooncake"
	}
	return "trace(" + strconv.Quote(shown(t.Path, t.Shown)) + ", format=" + strconv.Quote(format) + ")"
}
