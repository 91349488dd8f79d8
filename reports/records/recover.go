package records

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// ErrNotRecords is returned by Recover for a file it cannot make sense of.
var ErrNotRecords = errors.New("records: not a records file")

// RecoverInfo says what Recover found and did.
type RecoverInfo struct {
	// Recovered is true when the file had no footer and Recover wrote its
	// good frames with one to dst; false when the file already had one and
	// nothing was written.
	Recovered bool
	// Rows and RowGroups are what the recovered file holds (or the finished
	// file, when Recovered is false).
	Rows      int64
	RowGroups int
	// DroppedBytes is the size of the torn tail left out: the row group
	// being written when the run crashed, or what followed a damaged frame.
	DroppedBytes int64
}

// Recover reads a records file whose run crashed (SIGKILL, OOM, power
// loss: no footer) and writes to dst the file Close would have written for
// the part that survived, so that every Parquet reader can open it. It
// keeps every complete frame — its length in the file, its CRC right and
// its Parquet file readable — up to the first one that is not, and appends
// a footer listing their row groups, with the key-value metadata of the
// last one plus "llmbench.recovered" = "true".
//
// The crashed file itself is only read, never changed: it may hold more
// than Recover can make sense of (a damaged frame in the middle, a tail a
// better tool could read), and what was measured is never destroyed.
//
// A file that already has its footer (a finished records file, or any
// Parquet file) gets Recovered false and nothing is written to dst. A file
// that is neither is refused with ErrNotRecords. Recover reads the whole
// file once; it must not run while a Writer is still writing to f.
func Recover(f *os.File, dst io.Writer) (RecoverInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return RecoverInfo{}, err
	}
	size := st.Size()
	head := make([]byte, len(magic))
	if err := readAt(f, head, 0); err != nil || string(head) != magic {
		return RecoverInfo{}, fmt.Errorf("%w: %s does not start with %q", ErrNotRecords, f.Name(), magic)
	}
	ft, kv, end, err := scanFrames(f, size)
	if err != nil {
		return RecoverInfo{}, fmt.Errorf("records: %s: %w", f.Name(), err)
	}
	if ft.frames == 0 {
		return unframed(f, size)
	}
	info := RecoverInfo{Rows: ft.md.NumRows, RowGroups: ft.count}
	if finished, err := hasFooter(f, end, size, &ft); err != nil || finished {
		return info, err
	}
	kv = append(slices.DeleteFunc(kv, func(p format.KeyValue) bool { return p.Key == keyRecovered }),
		format.KeyValue{Key: keyRecovered, Value: "true"})
	tail, err := ft.tail(kv)
	if err != nil {
		return info, err
	}
	if _, err := io.Copy(dst, io.NewSectionReader(f, 0, end)); err != nil {
		return info, err
	}
	if _, err := dst.Write(tail); err != nil {
		return info, err
	}
	info.Recovered, info.DroppedBytes = true, size-end
	return info, nil
}

// scanFrames walks the frames from the start of the file and returns the
// footer of the good ones, the key-value metadata of the last, and where
// they end. It stops at the first frame that does not fit in the file, has
// a wrong CRC or does not open: a crash leaves at most one torn frame, at
// the end, and anything after a damaged frame cannot be trusted. Only read
// errors are errors: they must not be mistaken for a torn tail.
func scanFrames(r io.ReaderAt, size int64) (ft footer, kv []format.KeyValue, end int64, err error) {
	var head [frameHeaderSize]byte
	var body []byte
	end = int64(len(magic))
	for size-end >= frameHeaderSize {
		if err := readAt(r, head[:], end); err != nil {
			return ft, kv, end, err
		}
		n := binary.LittleEndian.Uint64(head[:])
		if n > uint64(size-end-frameHeaderSize) {
			break
		}
		body = slices.Grow(body[:0], int(n)+len(magic))[:n]
		if err := readAt(r, body, end+frameHeaderSize); err != nil {
			return ft, kv, end, err
		}
		if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(head[8:]) {
			break
		}
		md, err := openMini(append(body, magic...))
		if err != nil {
			break
		}
		if err := ft.add(md, end+frameHeaderSize); err != nil {
			return ft, kv, end, err
		}
		kv = md.KeyValueMetadata
		end += frameHeaderSize + int64(n)
	}
	return ft, kv, end, nil
}

// hasFooter tells whether the bytes from end, after the last frame, are the
// footer Close writes for those frames.
func hasFooter(r io.ReaderAt, end, size int64, ft *footer) (bool, error) {
	var trailer [4 + len(magic)]byte // footer length, magic
	n := size - end - int64(len(trailer))
	if n < 0 {
		return false, nil
	}
	if err := readAt(r, trailer[:], end+n); err != nil {
		return false, err
	}
	if string(trailer[4:]) != magic || int64(binary.LittleEndian.Uint32(trailer[:])) != n {
		return false, nil
	}
	b := make([]byte, n)
	if err := readAt(r, b, end); err != nil {
		return false, err
	}
	var md format.FileMetaData
	if guard("its footer", func() error { return thrift.Unmarshal(new(thrift.CompactProtocol), b, &md) }) != nil {
		return false, nil
	}
	return md.NumRows == ft.md.NumRows && len(md.RowGroups) == ft.count, nil
}

// unframed handles a file without a single good frame: a Parquet file with
// a footer (e.g. written before records files had frames) is left as is.
func unframed(f *os.File, size int64) (RecoverInfo, error) {
	var rows int64
	var groups int
	err := guard("its footer", func() error {
		pf, err := parquet.OpenFile(f, size)
		if err == nil {
			rows, groups = pf.NumRows(), len(pf.RowGroups())
		}
		return err
	})
	if err != nil {
		return RecoverInfo{}, fmt.Errorf("%w: %s has neither a footer nor a complete frame (%v)", ErrNotRecords, f.Name(), err)
	}
	return RecoverInfo{Rows: rows, RowGroups: groups}, nil
}
