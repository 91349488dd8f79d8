package dataset

import (
	"fmt"
	"strconv"
)

// JSONL is a GenAI-Perf input file (--input-file): one JSON object per
// line with the prompt in "text" or "text_input" (not both) and an
// optional "output_length", the max_tokens to request, and optional
// "image" and "audio" (a file path or URL, or a list of them: see
// record.media). Entries follow the lines in order; blank lines are
// skipped and other keys ignored.
type JSONL struct {
	// Path is the file to read; errors name it.
	Path string
	// Shown is how String() names the file (the path as the scenario
	// wrote it); "" shows Path.
	Shown string
}

// Build reads the file: every entry when n <= 0, else the first n,
// cycling through the file when it has fewer.
func (j JSONL) Build(n int) ([]Entry, error) {
	entries, err := j.read()
	if err != nil {
		return nil, err
	}
	return cycle(entries, n), nil
}

// Check reads the whole file and reports its first problem, as Build
// would, so a bad file fails before any traffic is sent.
func (j JSONL) Check() (FileInfo, error) {
	entries, err := j.read()
	info := FileInfo{Entries: len(entries)}
	for _, e := range entries {
		if len(e.Images) > 0 || len(e.Audio) > 0 {
			info.Media++
		}
	}
	return info, err
}

func (j JSONL) read() ([]Entry, error) {
	var entries []Entry
	err := eachLine(j.Path, func(line int, text []byte) error {
		r, err := parseRecord(j.Path, line, text)
		if err != nil {
			return err
		}
		prompt, ok, err := r.prompt()
		if err != nil {
			return err
		}
		out, _, err := r.count("output_length")
		if err != nil {
			return err
		}
		e := Entry{Text: prompt, Words: CountWords(prompt), MaxTokens: out}
		if e.Images, e.Audio, err = r.media(); err != nil {
			return err
		}
		if !ok && len(e.Images) == 0 && len(e.Audio) == 0 { // a line of pictures alone is GenAI-Perf's too
			return r.errorf("text", "missing (want text or text_input, or an image or audio)")
		}
		entries = append(entries, e)
		return nil
	})
	if err == nil && len(entries) == 0 {
		err = fmt.Errorf("%s: no entries: want one JSON object per line", j.Path)
	}
	return entries, err
}

func (j JSONL) String() string { return "jsonl(" + strconv.Quote(shown(j.Path, j.Shown)) + ")" }
