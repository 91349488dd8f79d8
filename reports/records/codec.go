package records

import (
	"github.com/klauspost/compress/zstd"
	parquetzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// oneEncoder is the pages' compression: zstd at parquet-go's default level
// with parquet-go's own encoder options, so the bytes are those of
// parquet-go's zstd.Codec, but from one encoder the writer keeps. That
// codec takes its encoders from a sync.Pool, whose per-P cache misses
// when the writing goroutine moves to another P: at the end of a
// many-stream run it made a second encoder (1.3 MB, mostly its match
// tables) as often as not, and a collection empties the pool, so the
// next row group made one again. The writer's lock serializes Encode.
type oneEncoder struct {
	parquetzstd.Codec // its name, format code and Decode
	enc               *zstd.Encoder
}

func (c *oneEncoder) Encode(dst, src []byte) ([]byte, error) {
	if c.enc == nil { // a file with no rows never needs one
		enc, err := zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(parquetzstd.DefaultLevel),
			zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false),
		)
		if err != nil {
			return nil, err
		}
		c.enc = enc
	}
	return c.enc.EncodeAll(src, dst[:0]), nil
}
