package records

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/parquet-go/parquet-go"
)

var update = flag.Bool("update", false, "rewrite testdata/columns/v<SchemaVersion>.txt from the current schema")

// columnsFile is the committed column list of a schema version.
func columnsFile(version int) string {
	return filepath.Join("testdata", "columns", fmt.Sprintf("v%d.txt", version))
}

// columnList describes every node of a schema, one line each: its path,
// repetition, physical type (or "group") and logical type. Encodings and
// compression are left out: they may change without readers noticing.
func columnList(schema parquet.Node) []string {
	var lines []string
	var walk func(prefix string, n parquet.Node)
	walk = func(prefix string, n parquet.Node) {
		for _, f := range n.Fields() {
			line := prefix + f.Name() + " " + repetition(f)
			if f.Leaf() {
				line += " " + f.Type().Kind().String()
			} else {
				line += " group"
			}
			if lt := f.Type().LogicalType(); lt != nil {
				line += " " + lt.String()
			}
			lines = append(lines, line)
			walk(prefix+f.Name()+".", f)
		}
	}
	walk("", schema)
	return lines
}

func repetition(n parquet.Node) string {
	switch {
	case n.Optional():
		return "optional"
	case n.Repeated():
		return "repeated"
	}
	return "required"
}

// readColumns reads a committed column list, skipping comment lines.
func readColumns(t *testing.T, version int) []string {
	t.Helper()
	data, err := os.ReadFile(columnsFile(version))
	if err != nil {
		t.Fatalf("schema version %d has no committed column list: %v", version, err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestSchemaOnlyAddsColumns enforces SchemaVersion's rule: every column
// of every version, as committed, still exists with the same type, and
// the current version's list is the current schema, so that changing the
// schema without a bump fails. After a bump, -update writes the new
// version's list; past lists never change.
func TestSchemaOnlyAddsColumns(t *testing.T) {
	current := columnList(parquet.SchemaOf(row{}))
	if *update {
		header := fmt.Sprintf("# records.parquet schema version %d: path, repetition, physical type, logical type.\n"+
			"# Written by go test -run TestSchemaOnlyAddsColumns -update; never edit once a later version exists.\n",
			SchemaVersion)
		if err := os.WriteFile(columnsFile(SchemaVersion), []byte(header+strings.Join(current, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := readColumns(t, SchemaVersion); !slices.Equal(got, current) {
		t.Errorf("the schema differs from %s: bump SchemaVersion (adding columns only) and run with -update\n got %q\nwant %q",
			columnsFile(SchemaVersion), current, got)
	}
	for v := 1; v < SchemaVersion; v++ {
		for _, col := range readColumns(t, v) {
			if !slices.Contains(current, col) {
				t.Errorf("column %q of schema version %d is gone or changed type", col, v)
			}
		}
	}
}

// fixture is a committed file of testdata/fixtures and what reading it
// must give.
type fixture struct {
	Meta    Meta
	Records []metrics.Record
}

// TestReadFixtures reads the committed file of every past and the current
// schema version (and of earlier writers of a version) and checks that
// this reader returns exactly what the writer of that time wrote, and that
// each file has its version's committed columns.
func TestReadFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "fixtures", "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for v := 1; v <= SchemaVersion; v++ {
		if p := filepath.Join("testdata", "fixtures", fmt.Sprintf("v%d.parquet", v)); !slices.Contains(files, p) {
			t.Errorf("no fixture %s for schema version %d (go run ./reports/records/testdata/gen)", p, v)
		}
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) { checkFixture(t, path) })
	}
}

func checkFixture(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, meta, err := ReadRecords(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := readExpected(t, strings.TrimSuffix(path, ".parquet")+".json")
	if meta != want.Meta {
		t.Errorf("meta:\n got %+v\nwant %+v", meta, want.Meta)
	}
	if !reflect.DeepEqual(recs, want.Records) {
		t.Errorf("records differ from the writer's (%d read, %d written)", len(recs), len(want.Records))
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.Atoi(meta.SchemaVersion)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := columnList(f.Schema()), readColumns(t, v); !slices.Equal(got, want) {
		t.Errorf("columns differ from %s:\n got %q\nwant %q", columnsFile(v), got, want)
	}
}

func readExpected(t *testing.T, path string) fixture {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a renamed field must not read as zero
	var want fixture
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return want
}

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
