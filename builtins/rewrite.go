package builtins

import (
	"bytes"
	"strings"
)

// SPEC §6 names experiment()'s load parameter `load`, but `load` is a
// reserved word in Starlark (it introduces load statements), so
// `experiment(load = concurrency(1))` — the SPEC's own example — does not
// parse in any conforming interpreter. Rather than rename public API, the
// source is rewritten before parsing: every `load` identifier outside
// strings and comments that is not followed by "(" (so not a load
// statement) becomes loadAlias, which differs only in its "o" (Cyrillic
// U+043E). Columns count runes, so every position stays exact, and
// builtins, attributes and messages translate the alias back, so users
// only ever see `load`.
const loadAlias = "l\u043ead"

// rewriteLoad returns src with the non-statement uses of `load` renamed.
func rewriteLoad(src []byte) []byte {
	if !bytes.Contains(src, []byte("load")) {
		return src
	}
	var out bytes.Buffer
	out.Grow(len(src) + 8)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '#':
			j := i + bytes.IndexByte(src[i:], '\n')
			if j < i {
				j = len(src)
			}
			out.Write(src[i:j])
			i = j
		case c == '"' || c == '\'':
			j := skipString(src, i)
			out.Write(src[i:j])
			i = j
		case isIdentByte(c) && !('0' <= c && c <= '9'):
			j := i
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			word := src[i:j]
			if string(word) == "load" && !callFollows(src[j:]) {
				word = []byte(loadAlias)
			}
			out.Write(word)
			i = j
		case '0' <= c && c <= '9':
			j := i
			for j < len(src) && (isIdentByte(src[j]) || src[j] == '.') {
				j++
			}
			out.Write(src[i:j])
			i = j
		default:
			out.WriteByte(c)
			i++
		}
	}
	return out.Bytes()
}

// skipString returns the index just past the string literal starting at
// src[i] (a quote), single or triple quoted; a backslash always takes the
// next byte with it, in raw strings too, as Starlark's scanner does.
func skipString(src []byte, i int) int {
	q := src[i]
	triple := bytes.HasPrefix(src[i:], []byte{q, q, q})
	j := i + 1
	if triple {
		j = i + 3
	}
	for j < len(src) {
		switch {
		case src[j] == '\\':
			j += 2
		case triple && bytes.HasPrefix(src[j:], []byte{q, q, q}):
			return j + 3
		case !triple && src[j] == q:
			return j + 1
		case !triple && src[j] == '\n':
			return j // unterminated: let the parser report it
		default:
			j++
		}
	}
	return len(src)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// callFollows reports whether the next non-blank byte is "(".
func callFollows(rest []byte) bool {
	rest = bytes.TrimLeft(rest, " \t")
	return len(rest) > 0 && rest[0] == '('
}

// unalias puts `load` back into a name or message.
func unalias(s string) string { return strings.ReplaceAll(s, loadAlias, "load") }
