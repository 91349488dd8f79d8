package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

// TestBodyWriteTo: io.Copy out of a body goes through connBody.WriteTo
// (the drain after [DONE] needs no buffer of its own), which writes what
// Read would have given — the rest of a view half read included — and
// ends as Read does: nil at the body's end, its error when cut or broken.
func TestBodyWriteTo(t *testing.T) {
	payload := bytes.Repeat([]byte("data: {\"choices\":[]}\n\n"), 40)
	chunked := chunks(payload, 37)
	whole := append(append([]byte(nil), chunked...), "0\r\n\r\n"...)
	for _, tc := range []struct {
		name  string
		data  []byte
		want  error
		first int // bytes read with Read before io.Copy
	}{
		{"whole", whole, nil, 0},
		{"after a partial read", whole, nil, 5},
		{"cut", chunked[:len(chunked)-10], io.ErrUnexpectedEOF, 3},
		{"broken framing", append(append([]byte(nil), chunked...), "zz\r\n"...), &framingError{}, 0},
	} {
		for _, sizes := range [][]byte{nil, {0}, {6, 200, 1}} {
			b := &connBody{in: readBuf{src: &netReads{data: tc.data, sizes: sizes}}, clock: NewClock(),
				release: func(bool) {}, framing: byChunks}
			got := make([]byte, tc.first)
			if _, err := io.ReadFull(b, got); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			var dst io.Writer = &out
			if _, ok := io.Writer(&out).(io.ReaderFrom); ok {
				dst = struct{ io.Writer }{&out} // io.Copy must take the body's WriteTo, not bytes.Buffer's ReadFrom
			}
			n, err := io.Copy(dst, b)
			got = append(got, out.Bytes()...)
			var fe *framingError
			switch {
			case tc.want == nil && err != nil, tc.want == io.ErrUnexpectedEOF && err != io.ErrUnexpectedEOF,
				tc.name == "broken framing" && !errors.As(err, &fe):
				t.Errorf("%s %v: io.Copy ended with %v, want %v", tc.name, sizes, err, tc.want)
			case int(n) != out.Len():
				t.Errorf("%s %v: io.Copy counted %d bytes, wrote %d", tc.name, sizes, n, out.Len())
			case !bytes.HasPrefix(payload, got) || (tc.want == nil && len(got) != len(payload)):
				t.Errorf("%s %v: got %d bytes that are not the payload's start (%d bytes)", tc.name, sizes, len(got), len(payload))
			}
		}
	}
	var _ io.WriterTo = (*connBody)(nil)
}

// chunks frames payload as a chunked body's chunks of size bytes (the
// last one shorter), without the last chunk that ends the body.
func chunks(payload []byte, size int) []byte {
	var out []byte
	for rest := payload; len(rest) > 0; {
		k := min(len(rest), size)
		out = fmt.Appendf(out, "%x\r\n%s\r\n", k, rest[:k])
		rest = rest[k:]
	}
	return out
}
