package records

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// A records file is a standard Parquet file whose row groups are laid out
// so that a file cut short by a crash can be given its footer afterwards
// (docs/records.md, "On-disk layout"):
//
//	"PAR1"
//	frame…   the first one holds no rows, then one per flushed row group
//	footer   thrift FileMetaData listing every row group
//	4-byte little-endian footer length, "PAR1"
//
// A frame is a 12-byte header — the body length n (8 bytes little-endian)
// and the CRC-32C of the body (4 bytes little-endian) — followed by the
// n-byte body: a complete Parquet file holding the frame's row groups and
// the metadata known when it was written, minus its trailing "PAR1". The
// footer points at the row groups' pages inside the bodies; Parquet readers
// skip the bytes it does not reference (frame headers, per-frame footers).
//
// Dropping each body's trailing magic means a file never ends with "PAR1"
// until the real footer is written: a crashed file is refused by every
// reader, instead of being mistaken for a one-row-group file whose footer
// is some frame's, with offsets relative to that frame.
const (
	magic           = "PAR1"
	frameHeaderSize = 12
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// putFrameHeader fills h, the frameHeaderSize bytes before body.
func putFrameHeader(h, body []byte) {
	binary.LittleEndian.PutUint64(h, uint64(len(body)))
	binary.LittleEndian.PutUint32(h[8:], crc32.Checksum(body, castagnoli))
}

// openMini parses the Parquet file of one frame (its body with the "PAR1"
// put back) and returns its metadata, which owns its memory.
func openMini(mini []byte) (md *format.FileMetaData, err error) {
	err = guard("a frame's footer", func() error {
		f, err := parquet.OpenFile(bytes.NewReader(mini), int64(len(mini)),
			parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err == nil {
			md = f.Metadata()
		}
		return err
	})
	return md, err
}

// footer is the metadata of a whole records file, built frame by frame.
// Each row group is kept thrift-encoded, as the footer will hold it (~2 KB),
// not parsed (~30 KB of heap each: every column's path, statistics and
// encodings as Go values), so a long run's writer does not grow by the
// parsed metadata of every row group it flushed (~100 MB an hour at one
// row group a second).
type footer struct {
	md     format.FileMetaData // the file's metadata but its row groups
	groups []byte              // the row groups, each thrift-encoded, in order
	count  int                 // row groups in groups
	frames int
}

// add lists the row groups of a frame whose body starts at byte base of
// the file. The schema comes from the first frame: every frame of a file
// is written with the same one.
func (ft *footer) add(mini *format.FileMetaData, base int64) error {
	if ft.frames == 0 {
		ft.md.Version, ft.md.Schema, ft.md.ColumnOrders = mini.Version, mini.Schema, mini.ColumnOrders
		ft.md.CreatedBy = mini.CreatedBy
	}
	ft.frames++
	for i := range mini.RowGroups {
		rg := &mini.RowGroups[i]
		place(rg, base, ft.count)
		b, err := thrift.Marshal(new(thrift.CompactProtocol), rg)
		if err != nil {
			return err
		}
		ft.groups = append(ft.groups, b...)
		ft.count++
		ft.md.NumRows += rg.NumRows
	}
	return nil
}

// place turns the offsets of a row group within its frame's Parquet file
// into offsets within the records file. The page index (column and offset
// indexes) is dropped: offset indexes hold page offsets of the frame's file,
// and readers only use them to skip pages, which records files are too
// small per row group to need.
func place(rg *format.RowGroup, base int64, ordinal int) {
	rg.FileOffset += base
	rg.Ordinal = int16(ordinal) // i16 in the format; only encrypted files use it
	for i := range rg.Columns {
		c := &rg.Columns[i]
		c.FileOffset = shift(c.FileOffset, base)
		c.MetaData.DataPageOffset += base
		c.MetaData.DictionaryPageOffset = shift(c.MetaData.DictionaryPageOffset, base)
		c.MetaData.IndexPageOffset = shift(c.MetaData.IndexPageOffset, base)
		c.MetaData.BloomFilterOffset = shift(c.MetaData.BloomFilterOffset, base)
		c.OffsetIndexOffset, c.OffsetIndexLength = 0, 0
		c.ColumnIndexOffset, c.ColumnIndexLength = 0, 0
	}
}

// shift moves an optional offset, where 0 means absent (offset 0 of a
// Parquet file is its magic, never a page).
func shift(off, by int64) int64 {
	if off == 0 {
		return 0
	}
	return off + by
}

// tail encodes what ends the file: the footer with kv as its key-value
// metadata, its length and the magic. The row groups are spliced in
// encoded: in Thrift's compact protocol a list is its header and then its
// elements, each encoded as on its own, so the footer is the metadata
// encoded without row groups with that empty list (field 4, the one after
// the required version, schema and row count) replaced by the full one.
func (ft *footer) tail(kv []format.KeyValue) ([]byte, error) {
	md := ft.md
	md.KeyValueMetadata = kv
	whole, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		return nil, err
	}
	head, err := thrift.Marshal(new(thrift.CompactProtocol),
		&format.FileMetaData{Version: md.Version, Schema: md.Schema, NumRows: md.NumRows})
	if err != nil {
		return nil, err
	}
	// head is fields 1–3, field 4's header and its empty list, the stop.
	n := len(head) - 2
	if len(head) < 3 || !bytes.Equal(head[:n], whole[:n]) || head[n] != emptyStructList || head[n+1] != 0 {
		return nil, errors.New("records: unexpected footer encoding")
	}
	b := make([]byte, 0, len(whole)+len(ft.groups)+binary.MaxVarintLen64)
	b = append(b, whole[:n]...)
	b = appendStructListHeader(b, ft.count)
	b = append(b, ft.groups...)
	b = append(b, whole[n+1:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(b)))
	return append(b, magic...), nil
}

// emptyStructList is the compact protocol's header of an empty list of
// structs: size 0 in the high nibble, element type 12 (struct).
const emptyStructList = 0x0c

// appendStructListHeader appends the compact protocol's header of a list
// of n structs: the size in the high nibble below 15, else 15 there and
// the size as a varint after it.
func appendStructListHeader(b []byte, n int) []byte {
	if n < 15 {
		return append(b, byte(n<<4)|emptyStructList)
	}
	return binary.AppendUvarint(append(b, 0xf0|emptyStructList), uint64(n))
}

// keyValues converts metadata pairs to the footer's form.
func keyValues(pairs [][2]string) []format.KeyValue {
	kv := make([]format.KeyValue, len(pairs))
	for i, p := range pairs {
		kv[i] = format.KeyValue{Key: p[0], Value: p[1]}
	}
	return kv
}
