package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// ShareGPT is a ShareGPT JSON file: an array of {"id", "conversations":
// [{"from", "value"}, ...]}. Each conversation's first human turn is the
// prompt, and the gpt turn after it sets the output length: its tokens
// under Tokenizer, else its words. Conversations without such a pair are
// skipped and counted, not refused (ShareGPT dumps are full of them).
// Roles "user" and "assistant"/"chatgpt" are read as "human" and "gpt".
type ShareGPT struct {
	Path  string
	Shown string
	// Tokenizer, when set, measures the gpt turns in tokens.
	Tokenizer Tokenizer
	// MultiTurn keeps every human turn followed by a gpt turn, not only
	// the first: each conversation becomes a session (see Sessions).
	MultiTurn bool
}

// Build reads the file: every usable conversation when n <= 0, else the
// first n, cycling through them when there are fewer.
func (s ShareGPT) Build(n int) ([]Entry, error) {
	entries, err := s.Read(n)
	if err != nil {
		return nil, err
	}
	return cycle(entries, n), nil
}

// Check reads the whole file and reports its first problem and how many
// conversations were skipped, without measuring any turn.
func (s ShareGPT) Check() (FileInfo, error) {
	s.Tokenizer = nil
	entries, _, skipped, err := s.scan(0)
	return FileInfo{Entries: len(entries), Skipped: skipped}, err
}

// Read returns the first n usable conversations as entries (every one
// when n <= 0), measuring their gpt turns on all cores.
func (s ShareGPT) Read(n int) ([]Entry, error) {
	entries, answers, _, err := s.scan(n)
	if err != nil || s.Tokenizer == nil {
		return entries, err
	}
	err = parallel(len(entries), func(i int) error {
		entries[i].MaxTokens = max(1, len(s.Tokenizer.Encode(answers[i])))
		return nil
	})
	return entries, err
}

// scan decodes the array one conversation at a time, stopping after n
// usable ones (n > 0). Without a tokenizer the output length is counted
// here in words; with one, the gpt turns are returned for Read to measure.
func (s ShareGPT) scan(n int) (entries []Entry, answers []string, skipped int, err error) {
	convs, skipped, err := s.conversations(n)
	for _, c := range convs {
		entries = append(entries, Entry{Text: c.pairs[0].prompt, Words: CountWords(c.pairs[0].prompt)})
		answers = append(answers, c.pairs[0].answer)
	}
	if s.Tokenizer == nil {
		for i := range entries {
			entries[i].MaxTokens = max(1, CountWords(answers[i]))
		}
		answers = nil
	}
	return entries, answers, skipped, err
}

// sharegptConversation is one usable conversation: its id and its
// (human, gpt) pairs in order; single-turn use takes the first.
type sharegptConversation struct {
	id    string
	pairs []exchange
}

type exchange struct{ prompt, answer string }

// conversations decodes the array one conversation at a time, stopping
// after n usable ones (n > 0).
func (s ShareGPT) conversations(n int) (convs []sharegptConversation, skipped int, err error) {
	file, err := os.Open(s.Path)
	if err != nil {
		return nil, 0, err
	}
	defer file.Close()
	lines := &lineCounter{r: bufio.NewReaderSize(file, 1<<20)}
	dec := json.NewDecoder(lines)
	tok, err := dec.Token()
	if err != nil {
		return nil, 0, s.decodeError(lines, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, 0, &LineError{Path: s.Path, Line: lines.lineAt(dec.InputOffset()),
			Msg: fmt.Sprintf("got a JSON %s, want an array of conversations", tokenType(tok))}
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, 0, s.decodeError(lines, dec, err)
		}
		// Counting every element's line keeps the counter's memory small.
		line := lines.lineAt(dec.InputOffset() - int64(len(raw)))
		c, err := s.conversation(raw, i, line)
		switch {
		case err != nil:
			return nil, 0, err
		case len(c.pairs) == 0:
			skipped++
			continue
		}
		convs = append(convs, c)
		if n > 0 && len(convs) == n {
			return convs, skipped, nil
		}
	}
	if _, err := dec.Token(); err != nil { // the closing ]
		return nil, 0, s.decodeError(lines, dec, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("data after the array")
		}
		return nil, 0, s.decodeError(lines, dec, err)
	}
	if len(convs) == 0 {
		return nil, skipped, fmt.Errorf("%s: no conversation has a human turn followed by a gpt turn (%d skipped)", s.Path, skipped)
	}
	return convs, skipped, nil
}

// conversation returns element i of the array: each human turn with the
// gpt turn after it (only the first unless MultiTurn); no pairs for a
// conversation to skip. An empty turn ends a conversation there.
func (s ShareGPT) conversation(raw json.RawMessage, i, line int) (conv sharegptConversation, err error) {
	fail := func(field, format string, args ...any) error {
		return &LineError{Path: s.Path, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	where := fmt.Sprintf("[%d]", i)
	if raw[0] != '{' {
		return conv, fail(where, "got %s, want a conversation object", jsonType(raw))
	}
	var c map[string]json.RawMessage
	if err := json.Unmarshal(raw, &c); err != nil {
		return conv, fail(where, "%s", jsonError(err))
	}
	convRaw, ok := c["conversations"]
	if !ok || string(convRaw) == "null" {
		return conv, fail(where+".conversations", "missing")
	}
	var turns []json.RawMessage
	if convRaw[0] != '[' || json.Unmarshal(convRaw, &turns) != nil {
		return conv, fail(where+".conversations", "got %s, want a list of turns", jsonType(convRaw))
	}
	_ = json.Unmarshal(c["id"], &conv.id) // an id that is not a string is left out
	havePrompt, prompt := false, ""
	for t, turnRaw := range turns {
		field := fmt.Sprintf("%s.conversations[%d]", where, t)
		var turn map[string]json.RawMessage
		if turnRaw[0] != '{' || json.Unmarshal(turnRaw, &turn) != nil {
			return conv, fail(field, "got %s, want a turn object", jsonType(turnRaw))
		}
		from, value, err := turnStrings(turn["from"], turn["value"], field, fail)
		if err != nil {
			return conv, err
		}
		switch {
		case !havePrompt && (from == "human" || from == "user"):
			prompt, havePrompt = value, true
		case havePrompt && (from == "gpt" || from == "assistant" || from == "chatgpt"):
			if prompt == "" || value == "" {
				return conv, nil
			}
			conv.pairs = append(conv.pairs, exchange{prompt, value})
			if !s.MultiTurn {
				return conv, nil
			}
			havePrompt = false
		}
	}
	return conv, nil
}

// turnStrings checks a turn's from and value are strings.
func turnStrings(fromRaw, valueRaw json.RawMessage, field string, fail func(field, format string, args ...any) error) (from, value string, err error) {
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  *string
	}{{"from", fromRaw, &from}, {"value", valueRaw, &value}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			return "", "", fail(field+"."+f.name, "missing")
		}
		if f.raw[0] != '"' || json.Unmarshal(f.raw, f.dst) != nil {
			return "", "", fail(field+"."+f.name, "got %s, want a string", jsonType(f.raw))
		}
	}
	return from, value, nil
}

// decodeError places a decoding error on its line.
func (s ShareGPT) decodeError(lines *lineCounter, dec *json.Decoder, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return &LineError{Path: s.Path, Line: lines.lineAt(syn.Offset), Msg: "malformed JSON: " + syn.Error()}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &LineError{Path: s.Path, Line: lines.lastLine(), Msg: "malformed JSON: unexpected end of file"}
	}
	return &LineError{Path: s.Path, Line: lines.lineAt(dec.InputOffset()), Msg: "malformed JSON: " + err.Error()}
}

func tokenType(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "object"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

func (s ShareGPT) String() string {
	multi := ""
	if s.MultiTurn {
		multi = ", multi_turn=True"
	}
	return "sharegpt(" + strconv.Quote(shown(s.Path, s.Shown)) + multi + ")"
}

// lineCounter tells the line of an offset in a stream it passes through,
// keeping only the bytes not yet counted: offsets asked about only grow,
// so a file of any size is counted in little memory.
type lineCounter struct {
	r       io.Reader
	pending []byte // bytes from offset base on
	base    int64
	lines   int // newlines before base
}

func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.pending = append(l.pending, p[:n]...)
	return n, err
}

// lineAt returns the 1-based line of byte offset off (off >= every
// offset asked before).
func (l *lineCounter) lineAt(off int64) int {
	k := int(min(max(off-l.base, 0), int64(len(l.pending))))
	l.lines += bytes.Count(l.pending[:k], []byte{'\n'})
	l.base += int64(k)
	l.pending = append(l.pending[:0], l.pending[k:]...)
	return l.lines + 1
}

// lastLine returns the line of the last byte read (a final newline ends
// that line rather than starting another).
func (l *lineCounter) lastLine() int {
	end := l.base + int64(len(l.pending))
	if len(l.pending) > 0 && l.pending[len(l.pending)-1] == '\n' {
		end--
	}
	return l.lineAt(end)
}

// Sessions reads the file's conversations as sessions (MultiTurn): each
// human turn is a user turn asking for as many tokens (under Tokenizer,
// else words) as the gpt turn after it holds; the assistant's history is
// what the server answers. The conversation's "id" names its session.
// n > 0 takes the first n, cycling when the file has fewer.
func (s ShareGPT) Sessions(n int) ([]Session, error) {
	convs, _, err := s.conversations(n)
	if err != nil {
		return nil, err
	}
	sessions := make([]Session, len(convs))
	for i, c := range convs {
		sessions[i].ID = c.id
		for _, p := range c.pairs {
			sessions[i].Turns = append(sessions[i].Turns, Turn{Entry: Entry{Text: p.prompt, Words: CountWords(p.prompt)}})
		}
	}
	err = parallel(len(convs), func(i int) error {
		for t, p := range convs[i].pairs {
			sessions[i].Turns[t].MaxTokens = s.answerLength(p.answer)
		}
		return nil
	})
	return cycleSessions(sessions, n), err
}

// answerLength is a gpt turn's length: its tokens, else its words.
func (s ShareGPT) answerLength(answer string) int {
	if s.Tokenizer != nil {
		return max(1, len(s.Tokenizer.Encode(answer)))
	}
	return max(1, CountWords(answer))
}
