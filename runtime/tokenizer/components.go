package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// component is the union of the fields used by the normalizers,
// pre-tokenizers and decoders of tokenizer.json, all tagged by "type".
type component struct {
	Type             string            `json:"type"`
	Normalizers      []json.RawMessage `json:"normalizers"`
	Pretokenizers    []json.RawMessage `json:"pretokenizers"`
	Decoders         []json.RawMessage `json:"decoders"`
	Prepend          string            `json:"prepend"`
	Pattern          *patternJSON      `json:"pattern"`
	Content          string            `json:"content"`
	StripLeft        bool              `json:"strip_left"`
	StripRight       bool              `json:"strip_right"`
	PrecompiledMap   *string           `json:"precompiled_charsmap"`
	Behavior         string            `json:"behavior"`
	Invert           bool              `json:"invert"`
	AddPrefixSpace   *bool             `json:"add_prefix_space"`
	UseRegex         *bool             `json:"use_regex"`
	Replacement      string            `json:"replacement"`
	PrependScheme    string            `json:"prepend_scheme"`
	Split            *bool             `json:"split"`
	IndividualDigits bool              `json:"individual_digits"`
	Start            int               `json:"start"`
	Stop             int               `json:"stop"`
}

// patternJSON is {"String": "..."} or {"Regex": "..."}.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

func (p *patternJSON) compile() (matcher, error) {
	switch {
	case p == nil:
		return nil, fmt.Errorf("missing pattern")
	case p.String != nil && *p.String != "":
		return literal(*p.String), nil
	case p.Regex != nil && *p.Regex != "":
		return compileRegex(*p.Regex)
	}
	return nil, fmt.Errorf("empty pattern")
}

// unsupported names a component this package does not implement; Load
// refuses such files instead of producing wrong counts.
func unsupported(kind, typ string) error {
	return fmt.Errorf("%s %q is not supported", kind, typ)
}

func decodeComponent(raw json.RawMessage, kind string) (*component, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	return &c, nil
}

// buildNormalizer returns nil for a null normalizer.
func buildNormalizer(raw json.RawMessage) (normalizer, error) {
	c, err := decodeComponent(raw, "normalizer")
	if c == nil || err != nil {
		return nil, err
	}
	switch c.Type {
	case "Sequence":
		var seq normSequence
		for _, r := range c.Normalizers {
			n, err := buildNormalizer(r)
			if err != nil {
				return nil, err
			}
			if n != nil {
				seq = append(seq, n)
			}
		}
		return seq, nil
	case "NFC", "NFD", "NFKC", "NFKD":
		forms := map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}
		return newUnicodeForm(forms[c.Type]), nil
	case "Prepend":
		return prependNorm{c.Prepend}, nil
	case "Replace":
		m, err := c.Pattern.compile()
		if err != nil {
			return nil, fmt.Errorf("normalizer Replace: %w", err)
		}
		return replaceNorm{m, c.Content}, nil
	case "Lowercase":
		return lowercaseNorm{}, nil
	case "Strip":
		return stripNorm{c.StripLeft, c.StripRight}, nil
	case "StripAccents":
		return stripAccentsNorm{}, nil
	case "ByteLevel":
		return byteLevelNorm{}, nil
	case "Precompiled":
		if c.PrecompiledMap == nil || *c.PrecompiledMap == "" {
			return nil, nil // an empty charsmap changes nothing
		}
	}
	return nil, unsupported("normalizer", c.Type)
}

// buildPreTokenizer returns nil for a null pre-tokenizer.
func buildPreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	c, err := decodeComponent(raw, "pre_tokenizer")
	if c == nil || err != nil {
		return nil, err
	}
	switch c.Type {
	case "Sequence":
		var seq preSequence
		for _, r := range c.Pretokenizers {
			p, err := buildPreTokenizer(r)
			if err != nil {
				return nil, err
			}
			if p != nil {
				seq = append(seq, p)
			}
		}
		return seq, nil
	case "Split":
		m, err := c.Pattern.compile()
		if err != nil {
			return nil, fmt.Errorf("pre_tokenizer Split: %w", err)
		}
		b, ok := behaviors[c.Behavior]
		if !ok {
			return nil, fmt.Errorf("pre_tokenizer Split: behavior %q is not supported", c.Behavior)
		}
		return splitPre{m, b, c.Invert}, nil
	case "ByteLevel":
		b := byteLevelPre{addPrefixSpace: c.AddPrefixSpace != nil && *c.AddPrefixSpace}
		if c.UseRegex == nil || *c.UseRegex {
			b.regex, _ = compileRegex(gpt2Pattern)
		}
		return b, nil
	case "Metaspace":
		repl, scheme, err := metaspaceConfig(c)
		if err != nil {
			return nil, fmt.Errorf("pre_tokenizer Metaspace: %w", err)
		}
		return metaspacePre{string(repl), scheme, c.Split == nil || *c.Split}, nil
	case "Digits":
		return digitsPre{c.IndividualDigits}, nil
	}
	return nil, unsupported("pre_tokenizer", c.Type)
}

// metaspaceConfig reads the replacement character and the prepend scheme,
// mapping the legacy add_prefix_space=false to "never" as Rust does.
func metaspaceConfig(c *component) (rune, string, error) {
	repl, size := utf8.DecodeRuneInString(c.Replacement)
	if size == 0 || size != len(c.Replacement) {
		return 0, "", fmt.Errorf("replacement %q is not one character", c.Replacement)
	}
	scheme := c.PrependScheme
	if scheme == "" {
		scheme = "always"
	}
	if scheme != "always" && scheme != "first" && scheme != "never" {
		return 0, "", fmt.Errorf("prepend_scheme %q is not supported", scheme)
	}
	if c.AddPrefixSpace != nil && !*c.AddPrefixSpace {
		if scheme != "never" && c.PrependScheme != "" {
			return 0, "", fmt.Errorf("add_prefix_space does not match declared prepend_scheme")
		}
		scheme = "never"
	}
	return repl, scheme, nil
}

// buildDecoder returns nil for a null decoder.
func buildDecoder(raw json.RawMessage) (decoder, error) {
	c, err := decodeComponent(raw, "decoder")
	if c == nil || err != nil {
		return nil, err
	}
	switch c.Type {
	case "Sequence":
		var seq decSequence
		for _, r := range c.Decoders {
			d, err := buildDecoder(r)
			if err != nil {
				return nil, err
			}
			if d != nil {
				seq = append(seq, d)
			}
		}
		return seq, nil
	case "ByteLevel":
		return byteLevelDec{}, nil
	case "Metaspace":
		repl, scheme, err := metaspaceConfig(c)
		if err != nil {
			return nil, fmt.Errorf("decoder Metaspace: %w", err)
		}
		return metaspaceDec{repl, scheme}, nil
	case "Replace":
		m, err := c.Pattern.compile()
		if err != nil {
			return nil, fmt.Errorf("decoder Replace: %w", err)
		}
		return replaceDec{replaceNorm{m, c.Content}}, nil
	case "ByteFallback":
		return byteFallbackDec{}, nil
	case "Fuse":
		return fuseDec{}, nil
	case "Strip":
		r, size := utf8.DecodeRuneInString(c.Content)
		if size == 0 || size != len(c.Content) {
			return nil, fmt.Errorf("decoder Strip: content %q is not one character", c.Content)
		}
		return stripDec{r, c.Start, c.Stop}, nil
	}
	return nil, unsupported("decoder", strings.TrimSpace(c.Type))
}
