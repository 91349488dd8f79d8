package runtime

import (
	"reflect"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// FuzzTelemetryAccount feeds the scrapes' account that telemetry.parquet
// keeps in its metadata (llmbench report reads it back with the samples)
// any text. It is refused with an error saying so, or gives the URLs,
// scrape reports and warnings that, written again, read back the same.
func FuzzTelemetryAccount(f *testing.F) {
	for _, s := range []string{"", "{}", "null", `{"urls":["http://h:9400/metrics"],"reports":[{"URL":"http://h:9400/metrics","Source":"h:9400",` +
		`"Start":1,"End":2,"Attempts":3,"Successes":2,"Failures":1,"FirstError":"EOF","Gaps":[{}],"CPU":1000}],"warnings":["w"]}`,
		`{"urls":"x"}`, `{"reports":[{"CPU":1e30}]}`, `[]`, `{"warnings":[null]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, account string) {
		pt, err := RebuildTelemetry(nil, account, &metrics.Summary{}, 0, "")
		if err != nil {
			if !strings.Contains(err.Error(), "telemetry account") {
				t.Fatalf("%q: %v: want an error naming the telemetry account", account, err)
			}
			return
		}
		if account == "" && (pt.URLs != nil || pt.Reports != nil || pt.Warnings != nil) {
			t.Fatalf("no account gave %+v", pt)
		}
		again, err := pt.Account()
		if err != nil {
			t.Fatalf("%q read back does not write: %v", account, err)
		}
		pt2, err := RebuildTelemetry(nil, again, &metrics.Summary{}, 0, "")
		if err != nil || !reflect.DeepEqual(pt2.URLs, pt.URLs) || !reflect.DeepEqual(pt2.Reports, pt.Reports) || !reflect.DeepEqual(pt2.Warnings, pt.Warnings) {
			t.Fatalf("%q read as %+v, written as %s, read back as %+v, %v", account, pt, again, pt2, err)
		}
	})
}
