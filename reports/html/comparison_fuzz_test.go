package html

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/reports/comparison"
)

// FuzzComparisonFile feeds compare.json's reader (report reads a run's
// compare.json back into report.html) arbitrary bytes. It gives an error
// naming the file, or a File that reads back the same once written and
// whose view has one row per compared metric, never a panic.
func FuzzComparisonFile(f *testing.F) {
	for _, s := range []string{"", "{}", `{"schema":1}`, `{"schema":2}`,
		`{"schema":2,"baseline":"a","candidate":"b","confidence":0.95,"tolerance":0.05,"regressions":1,"points":[{"experiment":"e","point":"c8","metrics":[` +
			`{"metric":"ttft_p99","direction":"lower","unit":"ms","baseline":10,"candidate":12,"change":0.2,"interval":[0.1,null],"method":"bootstrap","verdict":"regression",` +
			`"mdc":0.08,"adjustment":"","informational":false,"unbounded":"only 3 requests above p99","baseline_runs":5,"candidate_runs":1},` +
			`{"metric":"x","interval":[null,null],"verdict":"?","mdc":null,"informational":true,"adjustment":"regression → inconclusive after Holm over 4 gates"}]}],` +
			`"unmatched":["e/c16"],"warnings":["w"]}`,
		`{"schema":2,"points":[{"metrics":[{"interval":[1]}]}]}`, `{"schema":2,"points":[null,{"metrics":null}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := comparison.ReadJSON(bytes.NewReader(data))
		if err != nil {
			if file != nil || !strings.Contains(err.Error(), "compare.json") {
				t.Fatalf("%v, %v: want only an error naming compare.json", file, err)
			}
			return
		}
		b, err := json.Marshal(file)
		if err != nil {
			t.Fatalf("a compare.json read back does not write: %v", err)
		}
		again, err := comparison.ReadJSON(bytes.NewReader(b))
		if err != nil || !reflect.DeepEqual(again, file) {
			t.Fatalf("read %+v, written as %s, read back as %+v, %v", file, b, again, err)
		}
		rows := 0
		for _, p := range file.Points {
			rows += len(p.Metrics)
		}
		if v := newComparisonView(file); len(v.Rows)+len(v.Informational) != rows || len(v.Notes) != len(file.Unmatched)+len(file.Warnings) {
			t.Fatalf("%d metrics gave %d rows, %d unmatched and %d warnings %d notes", rows, len(v.Rows), len(file.Unmatched), len(file.Warnings), len(v.Notes))
		}
	})
}
