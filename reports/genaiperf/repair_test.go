package genaiperf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// An export cut at any byte is repaired to the requests written whole
// before the cut (payloads full of braces, quotes and commas included),
// and the sent filter keeps only the requests the records hold.
func TestRepairProfileExportAtEveryCut(t *testing.T) {
	r := DefaultRun("m")
	recs, payloads := exampleRecords()
	payloads[0] = []byte(`{"messages":[{"role":"user","content":"}],\"{ ,"}]}`)
	whole := writeProfileExport(t, &r, recs, payloads)
	path := filepath.Join(t.TempDir(), "profile_export.json")
	for cut := 1; cut < len(whole)-1; cut++ {
		if err := os.WriteFile(path, []byte(whole[:cut]), 0o644); err != nil {
			t.Fatal(err)
		}
		kept, repaired, err := RepairProfileExport(path, &r, nil)
		if err != nil { // only before the request list begins
			if cut > len(`{"experiments":[{"experiment":{"mode":"concurrency","value":1},"requests":[`) {
				t.Fatalf("cut at %d: %v", cut, err)
			}
			continue
		}
		b, _ := os.ReadFile(path)
		var got paExport
		if !repaired || json.Unmarshal(b, &got) != nil || len(got.Experiments[0].Requests) != kept || kept > len(recs) {
			t.Fatalf("cut at %d: repaired %v, kept %d:\n%s", cut, repaired, kept, b)
		}
		for i, req := range got.Experiments[0].Requests {
			if req.Timestamp != recs[i].Sent {
				t.Fatalf("cut at %d: request %d is not the one written %d-th", cut, i, i)
			}
		}
	}
	if err := os.WriteFile(path, []byte(whole[:len(whole)-3]), 0o644); err != nil {
		t.Fatal(err)
	}
	if kept, _, err := RepairProfileExport(path, &r, map[int64]bool{recs[1].Sent: true}); err != nil || kept != 1 {
		t.Errorf("filtered repair kept %d (%v), want the one request the records hold", kept, err)
	}
	if _, repaired, err := RepairProfileExport(path, &r, nil); repaired || err != nil {
		t.Errorf("a valid export was rewritten (%v)", err)
	}
}
