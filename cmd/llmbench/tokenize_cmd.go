package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmbench/llmbench/runtime/tokenizer"
)

// tokenizeCmd prints how many tokens a text is under a model's tokenizer
// (or the ids themselves): the quickest way to see why an ISL differs
// between tools.
type tokenizeCmd struct {
	Tokenizer string `required:"" help:"tokenizer.json file, a folder holding one, or a Hugging Face model id in the local cache."`
	IDs       bool   `name:"ids" help:"Print the token ids, space separated, instead of the count."`
	File      string `arg:"" optional:"" default:"-" help:"Text file to tokenize; - or nothing reads standard input."`
}

func (c *tokenizeCmd) Run(e *env) error {
	tok, err := tokenizer.Load(c.Tokenizer)
	if err != nil {
		return invalid("--tokenizer: %w", err)
	}
	text, err := readInput(c.File, e.stdin)
	if err != nil {
		return invalid("%w", err)
	}
	if !c.IDs {
		fmt.Fprintln(e.stdout, tok.Count(text))
		return nil
	}
	ids := tok.Encode(text)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	fmt.Fprintln(e.stdout, strings.Join(parts, " "))
	return nil
}

// readInput reads a file, or standard input for "-".
func readInput(path string, stdin io.Reader) (string, error) {
	if path == "-" || path == "" {
		b, err := io.ReadAll(stdin)
		return string(b), err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return string(b), nil
}
