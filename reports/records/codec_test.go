package records

import (
	"bytes"
	"encoding/binary"
	"testing"

	parquetzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// TestOneEncoderWritesParquetGosBytes: the writer's codec compresses a
// page to exactly the bytes parquet-go's zstd codec does, so files are
// what they were, and decodes what it encoded.
func TestOneEncoderWritesParquetGosBytes(t *testing.T) {
	var theirs parquetzstd.Codec
	ours := new(oneEncoder)
	if ours.CompressionCodec() != theirs.CompressionCodec() || ours.String() != theirs.String() {
		t.Fatalf("codec %s (%d), want %s (%d)", ours, ours.CompressionCodec(), &theirs, theirs.CompressionCodec())
	}
	page := make([]byte, 0, 300_000)
	for i := range 37_000 { // delta-like values: compressible, not trivially
		page = binary.LittleEndian.AppendUint64(page, uint64(500_000_000+i*17%5_003))
	}
	for _, src := range [][]byte{nil, []byte("x"), page[:4096], page} {
		want, err := theirs.Encode(nil, src)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the encoder kept and used again
			got, err := ours.Encode(make([]byte, 3), src)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%d bytes compressed to %d bytes, parquet-go's codec to %d", len(src), len(got), len(want))
			}
			back, err := ours.Decode(nil, got)
			if err != nil || !bytes.Equal(back, src) {
				t.Fatalf("%d bytes back as %d (%v)", len(src), len(back), err)
			}
		}
	}
}
