package records

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// upgrades holds one step per schema version before SchemaVersion:
// upgrades[v-1] brings the metadata read from a file of version v to what a
// file of version v+1 would hold (e.g. a key added in v+1, derived from
// what version v stored, or left empty when nothing can be derived). A
// file of version v goes through upgrades[v-1:] in order, so a reader
// only ever deals with current metadata, and each bump writes one step
// instead of every reader learning every version. Rows need no steps: the
// columns a version adds read as NULL or zero from older files, which the
// rule at SchemaVersion makes their true value.
var upgrades = []func(*Meta){
	// 1 → 2 added llmbench.point_record, the runner's saved plan. A
	// version 1 file has none and none can be derived here: its Config and
	// Point label stay, and readers that need the plan fall back to them.
	func(*Meta) {},
	// 2 → 3 added the column retries (NULL in older files); no metadata.
	func(*Meta) {},
	// 3 → 4 added the columns session_id, turn and last_turn (NULL in
	// older files, which held no conversations); no metadata.
	func(*Meta) {},
	// 4 → 5 added the columns cached_tokens (NULL in older files),
	// warmup (false in older files, which had no warm-up rule) and
	// replica (NULL in older files, whose endpoints had one URL); no
	// metadata.
	func(*Meta) {},
	// 5 → 6: llmbench.point_record holds the plan as plan.Experiment's own
	// JSON (its version 2); the record says its version, and
	// runtime.DecodePointRecord reads version 1 too, so the value is kept
	// as stored. No columns.
	func(*Meta) {},
	// 6 → 7 added the columns image_count, image_bytes, audio_count,
	// audio_bytes and audio_seconds (zero in older files, which held no
	// multimodal requests); no metadata.
	func(*Meta) {},
}

// upgrade checks the schema version of metadata read from a file and
// brings the metadata up to SchemaVersion. meta.SchemaVersion keeps the
// file's own version.
func upgrade(meta *Meta) error {
	v, err := fileVersion(meta.SchemaVersion)
	if err != nil {
		return err
	}
	for _, step := range upgrades[v-1:] {
		step(meta)
	}
	return nil
}

// fileVersion parses a file's schema version, refusing one that no
// llmbench wrote and one newer than this package reads.
func fileVersion(s string) (int, error) {
	v, err := strconv.Atoi(s)
	switch {
	case err != nil || v < 1:
		return 0, fmt.Errorf("records: schema version %q: not a records file written by llmbench", s)
	case v > SchemaVersion:
		return 0, fmt.Errorf("records: schema version %d is newer than this llmbench reads (1 to %d): use a newer llmbench",
			v, SchemaVersion)
	}
	return v, nil
}

// absentFields returns the indices of the fields of row whose columns a
// file's schema lacks, as an older version's does. ReadEach clears them
// itself rather than keep what parquet-go's schema conversion reads for a
// missing column: it gives a missing LIST column the structure of a
// sibling column, i.e. one zero element in every row where that sibling is
// set, instead of an empty list.
func absentFields(schema *parquet.Schema) []int {
	has := map[string]bool{}
	for _, f := range schema.Fields() {
		has[f.Name()] = true
	}
	rt := reflect.TypeFor[row]()
	var absent []int
	for i := range rt.NumField() {
		if name, _, _ := strings.Cut(rt.Field(i).Tag.Get("parquet"), ","); !has[name] {
			absent = append(absent, i)
		}
	}
	return absent
}

// clearFields sets the fields of x listed by absentFields to zero (NULL).
func clearFields(x *row, fields []int) {
	if len(fields) == 0 {
		return
	}
	v := reflect.ValueOf(x).Elem()
	for _, i := range fields {
		v.Field(i).SetZero()
	}
}
