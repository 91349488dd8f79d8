package records

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmbench/llmbench/metrics"
)

// panickedParquetGo are the (offset, xor mask) flips of
// testdata/fixtures/v3.parquet that made parquet-go v0.32.0 panic (index
// out of range, nil pointer, unsafe.Slice of nil, "cannot call Kind on
// parquet MAP type") when every byte was flipped with 0x01, 0x80 and
// 0xff: 148 of 115,806. pyarrow 26 reads 19 of them and refuses the rest.
var panickedParquetGo = [][2]int{
	{29492, 0x01}, {29763, 0x01}, {29764, 0x01}, {29798, 0x01}, {29799, 0x01}, {29860, 0x01}, {29861, 0x01},
	{29886, 0x01}, {29887, 0x01}, {29912, 0x01}, {29913, 0x01}, {29937, 0x01}, {29938, 0x01}, {29974, 0x01},
	{29975, 0x01}, {30000, 0x01}, {30001, 0x01}, {30110, 0x01}, {30111, 0x01}, {30147, 0x01}, {30148, 0x01},
	{30240, 0x01}, {30241, 0x01}, {30344, 0x01}, {30352, 0x01}, {30353, 0x01}, {30361, 0x01}, {30407, 0x01},
	{30415, 0x01}, {30416, 0x01}, {30424, 0x01}, {30492, 0x01}, {30570, 0x01}, {30655, 0x01}, {31004, 0x01},
	{31219, 0x01}, {31300, 0x01}, {31375, 0x01}, {31448, 0x01}, {31521, 0x01}, {31593, 0x01}, {31677, 0x01},
	{31750, 0x01}, {31861, 0x01}, {32225, 0x01}, {33457, 0x01}, {33524, 0x01}, {33591, 0x01}, {33658, 0x01},
	{33725, 0x01}, {33792, 0x01}, {33859, 0x01}, {33926, 0x01}, {33993, 0x01}, {4969, 0x80}, {5167, 0x80},
	{14150, 0x80}, {14349, 0x80}, {22835, 0x80}, {23017, 0x80}, {29573, 0x80}, {29596, 0x80}, {29625, 0x80},
	{29657, 0x80}, {29723, 0x80}, {29874, 0x80}, {29900, 0x80}, {29925, 0x80}, {29962, 0x80}, {29988, 0x80},
	{30071, 0x80}, {30099, 0x80}, {30136, 0x80}, {30177, 0x80}, {30231, 0x80}, {30291, 0x80}, {30316, 0x80},
	{30382, 0x80}, {30444, 0x80}, {30490, 0x80}, {30570, 0x80}, {30653, 0x80}, {30709, 0x80}, {31002, 0x80},
	{31423, 0x80}, {31496, 0x80}, {32225, 0x80}, {32800, 0x80}, {32870, 0x80}, {32893, 0x80}, {32952, 0x80},
	{33032, 0x80}, {33084, 0x80}, {33136, 0x80}, {33196, 0x80}, {33256, 0x80}, {33319, 0x80}, {33379, 0x80},
	{33439, 0x80}, {33506, 0x80}, {33573, 0x80}, {33640, 0x80}, {33707, 0x80}, {33774, 0x80}, {33841, 0x80},
	{33908, 0x80}, {33975, 0x80}, {34042, 0x80}, {34094, 0x80}, {34146, 0x80}, {34205, 0x80}, {34264, 0x80},
	{34775, 0x80}, {34798, 0x80}, {34845, 0x80}, {34927, 0x80}, {35007, 0x80}, {35059, 0x80}, {35111, 0x80},
	{35171, 0x80}, {35231, 0x80}, {35254, 0x80}, {35294, 0x80}, {35354, 0x80}, {35414, 0x80}, {35481, 0x80},
	{35548, 0x80}, {35615, 0x80}, {35682, 0x80}, {35749, 0x80}, {35816, 0x80}, {35883, 0x80}, {35950, 0x80},
	{36017, 0x80}, {36069, 0x80}, {36121, 0x80}, {36180, 0x80}, {36239, 0x80}, {30490, 0xff}, {30570, 0xff},
	{30653, 0xff}, {31002, 0xff}, {32225, 0xff}, {32893, 0xff}, {34264, 0xff}, {34798, 0xff}, {35254, 0xff},
	{36239, 0xff},
}

// TestCorruptFilesNeverPanic flips one byte of a records file at many
// offsets (every one that made parquet-go panic, and a spread of the
// others): each read must fail with an error or succeed with valid UTF-8
// strings, never panic. `llmbench report` names the file in the error
// (exit 2), see cmd/llmbench TestReportCorruptRecords.
func TestCorruptFilesNeverPanic(t *testing.T) {
	data, err := os.ReadFile("testdata/fixtures/v3.parquet")
	if err != nil {
		t.Fatal(err)
	}
	flips := panickedParquetGo
	masks := []int{0x01, 0x80, 0xff}
	for off := 0; off < len(data); off += 53 {
		flips = append(flips, [2]int{off, masks[off%3]})
	}
	corrupt := 0
	for _, fl := range flips {
		b := bytes.Clone(data)
		b[fl[0]] ^= byte(fl[1])
		recs, _, err := ReadRecords(bytes.NewReader(b), int64(len(b)))
		if errors.Is(err, ErrCorrupt) {
			corrupt++
		}
		if err == nil {
			checkReadBack(t, recs)
		}
	}
	if corrupt < len(panickedParquetGo) {
		t.Errorf("%d flips reported corrupt, want at least the %d that panicked", corrupt, len(panickedParquetGo))
	}
}

// checkReadBack holds what a read that succeeds must give, whatever the
// bytes: strings that are valid UTF-8 (reports and JSON rely on it).
func checkReadBack(t testing.TB, recs []metrics.Record) {
	t.Helper()
	for i, r := range recs {
		if !utf8.ValidString(r.Component) || r.Err != nil && (!utf8.ValidString(string(r.Err.Class)) || !utf8.ValidString(r.Err.Message)) {
			t.Fatalf("record %d holds invalid UTF-8: %+v", i, r)
		}
	}
}

// TestStringsStoredAsUTF8: Parquet's STRING columns are UTF-8, which
// pyarrow and DuckDB may check; a server's error message with invalid
// bytes is stored with U+FFFD in their place.
func TestStringsStoredAsUTF8(t *testing.T) {
	recs := []metrics.Record{{ID: 1, Sent: 5, Done: 9, Component: "a\xffb",
		Err: &metrics.Failure{Class: metrics.ErrHTTP, Status: 502, Message: "bad gateway \xc3("}}}
	data := writeFile(t, recs, Options{})
	back, _, err := ReadRecords(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if r := back[0]; r.Component != "a\uFFFDb" || r.Err.Message != "bad gateway \uFFFD(" {
		t.Errorf("read back %q, %q", r.Component, r.Err.Message)
	}
}

// A one-byte edit of a file of no rows (found by searching every byte
// value at every offset) makes parquet-go's reader return no rows and no
// error for ever, as telemetry.parquet's reader met before: ReadEach
// looped on it, and `llmbench report` hung. It now stops with a corrupt
// file error naming the rows. The same edit is FuzzReadRecords' seed
// testdata/fuzz/FuzzReadRecords/stalled-reader. (Offset 1774, value 5
// until schema version 7's columns moved the footer; searched again.)
func TestReadEachEndsOnAReaderThatStalls(t *testing.T) {
	data := edited(smallFile(t, 0, true), 1930, []byte{4}, 0)
	n := 0
	_, err := ReadEach(bytes.NewReader(data), int64(len(data)), func(*metrics.Record) error { n++; return nil })
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "no rows and no end") || n != 0 {
		t.Fatalf("read %d records, %v; want a corrupt file error", n, err)
	}
}
