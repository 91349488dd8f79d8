package metrics

import "testing"

// A reservation is kept by an answer that fills it and given back by one
// that stopped short (or failed before any chunk), with the chunks kept.
func TestExpectAndFitChunks(t *testing.T) {
	cases := []struct {
		name           string
		expect, stream int
		kept           bool // the reservation itself stays (no copy)
	}{
		{"filled", 100, 100, true},
		{"nearly filled", 100, 90, true},
		{"stopped short", 100, 10, false},
		{"failed before a chunk", 100, 0, false},
		{"capped reservation", 1 << 20, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r Record
			r.ExpectChunks(tc.expect)
			if c := cap(r.Chunks); c != min(tc.expect, maxExpectedChunks) || cap(r.ChunkEnds) != c {
				t.Fatalf("reserved %d/%d, want %d", c, cap(r.ChunkEnds), min(tc.expect, maxExpectedChunks))
			}
			for i := range tc.stream {
				r.Chunks, r.ChunkEnds = append(r.Chunks, int64(i)), append(r.ChunkEnds, int32(i))
			}
			reserved := cap(r.Chunks)
			r.FitChunks()
			// A copy's capacity is the allocator's size class: at most a
			// few entries over its length.
			slack := tc.stream/4 + 4
			switch {
			case len(r.Chunks) != tc.stream || len(r.ChunkEnds) != tc.stream:
				t.Errorf("after fit: %d chunks, %d ends, want %d", len(r.Chunks), len(r.ChunkEnds), tc.stream)
			case tc.kept && (cap(r.Chunks) != reserved || cap(r.ChunkEnds) != reserved):
				t.Errorf("cap %d/%d after fit, want the reservation %d kept", cap(r.Chunks), cap(r.ChunkEnds), reserved)
			case !tc.kept && (cap(r.Chunks) > tc.stream+slack || cap(r.ChunkEnds) > tc.stream+slack):
				t.Errorf("cap %d/%d after fit of %d chunks, want at most %d", cap(r.Chunks), cap(r.ChunkEnds), tc.stream, tc.stream+slack)
			}
			for i, at := range r.Chunks {
				if at != int64(i) || r.ChunkEnds[i] != int32(i) {
					t.Fatalf("chunk %d = %d/%d after fit", i, at, r.ChunkEnds[i])
				}
			}
		})
	}
}
