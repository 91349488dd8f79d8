package tokenizer

// GPT-2's byte-level alphabet maps every byte to a printable rune so that BPE
// vocabularies can be stored as JSON strings. Byte-level tokenizers (GPT-2,
// Llama 3, Qwen, GPT-4o) spell every vocabulary entry in this alphabet, so the
// pre-tokenizer must map text into it and the decoder must map it back.

var (
	// byteToRune is the forward table: byte b is spelled byteToRune[b].
	byteToRune [256]rune
	// runeToByte inverts byteToRune; runes outside the alphabet are absent.
	runeToByte map[rune]byte
	// byteToString caches the UTF-8 spelling of byteToRune, used when
	// mapping a piece into the alphabet.
	byteToString [256]string
)

func init() {
	var printable [256]bool
	for b := '!'; b <= '~'; b++ {
		printable[b] = true
	}
	for b := 0xA1; b <= 0xAC; b++ {
		printable[b] = true
	}
	for b := 0xAE; b <= 0xFF; b++ {
		printable[b] = true
	}
	runeToByte = make(map[rune]byte, 256)
	next := rune(256)
	for b := 0; b < 256; b++ {
		r := rune(b)
		if !printable[b] {
			r = next
			next++
		}
		byteToRune[b] = r
		runeToByte[r] = byte(b)
		byteToString[b] = string(r)
	}
}

// byteLevelMap spells s in the byte-level alphabet, as the ByteLevel
// pre-tokenizer does after splitting.
func byteLevelMap(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		n += len(byteToString[s[i]])
	}
	buf := make([]byte, 0, n)
	for i := 0; i < len(s); i++ {
		buf = append(buf, byteToString[s[i]]...)
	}
	return string(buf)
}

// byteLevelUnmap turns a token spelled in the byte-level alphabet back into
// bytes. Like the Rust decoder, a token holding any rune outside the alphabet
// (an added token such as "<|im_start|>" written in plain text) is kept as
// its raw UTF-8 bytes.
func byteLevelUnmap(dst []byte, tok string) []byte {
	start := len(dst)
	for _, r := range tok {
		b, ok := runeToByte[r]
		if !ok {
			return append(dst[:start], tok...)
		}
		dst = append(dst, b)
	}
	return dst
}
