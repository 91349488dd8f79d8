package records

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// TestFooterSplicesEncodedRowGroups: the footer, whose row groups are kept
// encoded and spliced into the metadata at Close, is byte for byte the
// encoding of the whole metadata, for list sizes on either side of the
// compact protocol's short header (14, 15) and a file of no row group.
func TestFooterSplicesEncodedRowGroups(t *testing.T) {
	for _, n := range []int{0, 1, 14, 15, 16, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			data := writeFile(t, genRecords(n, 7), Options{RowGroupRows: 1, FlushInterval: -1})
			size := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
			footer := data[len(data)-8-size : len(data)-8]
			var md format.FileMetaData
			if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
				t.Fatal(err)
			}
			if len(md.RowGroups) != n || md.NumRows != int64(n) {
				t.Fatalf("the footer lists %d row groups of %d rows, want %d", len(md.RowGroups), md.NumRows, n)
			}
			whole, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole, footer) {
				t.Errorf("the footer (%d bytes) is not the metadata's encoding (%d bytes)", len(footer), len(whole))
			}
		})
	}
}

// TestWriterHoldsLittlePerRowGroup: what a writer keeps per row group it
// flushed, for the footer, is the row group's encoding (~2 KB), not its
// parsed metadata (~30 KB of Go values), so a long run's writer does not
// grow by the latter every second.
func TestWriterHoldsLittlePerRowGroup(t *testing.T) {
	const groups = 300
	w, err := NewWriterOptions(io.Discard, testMeta, Options{RowGroupRows: 1, FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	recs := genRecords(groups+1, 3)
	if err := w.Write(recs[:1]...); err != nil { // the writer's own buffers, grown once
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := w.Write(recs[1:]...); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perGroup := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / groups
	t.Logf("%.0f bytes held per row group", perGroup)
	if perGroup > 8<<10 {
		t.Errorf("the writer holds %.1f KB per row group flushed; want its encoding, a few KB", perGroup/1024)
	}
	runtime.KeepAlive(w)
}
