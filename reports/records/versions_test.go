package records

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/parquet-go/parquet-go"
)

// olderRow is row without most of its columns, standing for a file of a
// version that predates them.
type olderRow struct {
	RequestID int64  `parquet:"request_id,delta"`
	SendTime  int64  `parquet:"send_time,timestamp(nanosecond),delta"`
	DoneTime  *int64 `parquet:"done_time,optional,timestamp(nanosecond)"`
}

// TestReadMissingColumns checks the reader side of the rule: columns a
// file lacks read as NULL or zero, so records of an older version come
// back with the later fields empty. A row with an optional value set is
// the case parquet-go's conversion alone gets wrong (see absentFields).
func TestReadMissingColumns(t *testing.T) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[olderRow](&buf, parquet.KeyValueMetadata(keySchemaVersion, "1"))
	if _, err := w.Write([]olderRow{{RequestID: 7, SendTime: 1_000, DoneTime: ptr(int64(5_000))}, {RequestID: 8, SendTime: 2_000}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, _, err := ReadRecords(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	want := []metrics.Record{{ID: 7, Sent: 1_000, Done: 5_000}, {ID: 8, Sent: 2_000}}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("read %+v, want %+v", recs, want)
	}
}

// TestSchemaVersionsRefused checks that versions no llmbench wrote, or
// newer than this one reads, are refused, naming the version.
func TestSchemaVersionsRefused(t *testing.T) {
	newer := strconv.Itoa(SchemaVersion + 1)
	for v, want := range map[string]string{
		"": `""`, "0": `"0"`, "x": `"x"`, newer: "version " + newer + " is newer",
	} {
		m := Meta{SchemaVersion: v}
		if err := upgrade(&m); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("schema version %q: error %v, want one with %s", v, err, want)
		}
	}
}

// TestOneUpgradePerVersion keeps upgrades in step with SchemaVersion: a
// bump must say how metadata of the version it leaves is brought up to
// date.
func TestOneUpgradePerVersion(t *testing.T) {
	if len(upgrades) != SchemaVersion-1 {
		t.Errorf("%d upgrade steps for schema version %d, want %d", len(upgrades), SchemaVersion, SchemaVersion-1)
	}
}
