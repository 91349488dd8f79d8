package main

import (
	"bytes"
	binenc "encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportNeverWritesOverWhatItRecovers truncates a finished point's
// records.parquet at several offsets, as a damaged copy or a full disk
// would, and runs `llmbench report` on each: the truncated file is never
// changed, what is recovered goes to records.recovered.parquet beside it,
// the finished run's profile_export_genai_perf.json (40 requests) is
// never replaced by one counting fewer, and a recovery of 0 requests is
// exit 3 that writes nothing.
func TestReportNeverWritesOverWhatItRecovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(binary, "profile", "-m", "m", "-u", "sim://?itl=1ms&ttft=1ms", "--streaming",
		"--concurrency", "4", "--request-count", "40", "--output-tokens-mean", "5", "--artifact-dir", "a")
	// A row group every few records: many frames to cut between.
	if r := runCommand(t, cmd, dir, []string{"LLMBENCH_RECORDS_FLUSH_INTERVAL=1ns"}); r.code != 0 {
		t.Fatalf("profile: exit %d\n%s", r.code, r.stderr)
	}
	fixture := filepath.Join(dir, "a", "m-openai-chat-concurrency4")
	full, err := os.ReadFile(filepath.Join(fixture, "records.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	frames := frameEnds(t, full)
	if len(frames) < 4 {
		t.Fatalf("fixture has %d frames, want several row groups", len(frames))
	}
	for _, c := range []struct {
		name string
		size int
		code int // 0: some requests recovered
	}{
		{"only the empty first frame", frames[0], 3},
		{"torn in the first row group", frames[0] + 20, 3},
		{"one row group", frames[1], 0},
		{"torn after two row groups", frames[2] + 9, 0},
		{"half the file", len(full) / 2, 0},
		{"footer cut", len(full) - 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			point := filepath.Join(t.TempDir(), "p")
			copyDir(t, fixture, point)
			cut := full[:c.size]
			recordsPath := filepath.Join(point, "records.parquet")
			if err := os.WriteFile(recordsPath, cut, 0o644); err != nil {
				t.Fatal(err)
			}
			jsonPath := filepath.Join(point, "profile_export_genai_perf.json")
			before, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatal(err)
			}
			r := runCLI(t, dir, "report", point)
			if r.code != c.code {
				t.Fatalf("report: exit %d, want %d\n%s", r.code, c.code, r.stderr)
			}
			if after, _ := os.ReadFile(recordsPath); !bytes.Equal(after, cut) {
				t.Errorf("report changed the records file it recovered (%d bytes, was %d)", len(after), len(cut))
			}
			recovered := filepath.Join(point, "records.recovered.parquet")
			if c.code != 0 {
				if _, err := os.Stat(recovered); err == nil || !strings.Contains(r.stderr, "recovered 0 requests") {
					t.Errorf("a recovery of nothing wrote %s or did not say so (%v):\n%s", recovered, err, r.stderr)
				}
				if after, _ := os.ReadFile(jsonPath); !bytes.Equal(after, before) {
					t.Error("a recovery of nothing rewrote profile_export_genai_perf.json")
				}
				return
			}
			if _, err := os.Stat(recovered); err != nil || !strings.Contains(r.stderr, "into "+recovered) {
				t.Fatalf("no %s, or not said (%v):\n%s", recovered, err, r.stderr)
			}
			if n := genaiPerfJSON(t, point)["request_count"]["avg"].(float64); n != 40 {
				t.Errorf("profile_export_genai_perf.json counts %v requests after report, want the finished run's 40", n)
			}
			if c.size < len(full)-1 {
				b, err := os.ReadFile(filepath.Join(point, "profile_export.recovered_genai_perf.json"))
				if err != nil || !bytes.Contains(b, []byte(`"request_count"`)) {
					t.Errorf("the recovered figures were not written beside (%v):\n%s", err, r.stderr)
				}
			}
		})
	}
}

// frameEnds lists where each frame of a records file ends (docs/records.md,
// "On-disk layout"): "PAR1", then frames of a 12-byte header (8-byte
// little-endian body length, 4-byte CRC) and the body.
func frameEnds(t *testing.T, b []byte) []int {
	t.Helper()
	var ends []int
	for at := 4; at+12 <= len(b); {
		n := int(binenc.LittleEndian.Uint64(b[at:]))
		if n <= 0 || at+12+n > len(b) {
			break
		}
		at += 12 + n
		ends = append(ends, at)
	}
	return ends
}

// copyDir copies the files of folder from (not its subfolders) into to.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReportKeepsWhatARunFinished: in a scenario run, a point whose
// records recover nothing (a kill as it began) is left out and said, the
// points before it are still reported (summary.json rebuilt, partial) and
// the exit is 3; and a finished run whose records were damaged later
// keeps its summary.json and report.html, never replaced by a partial
// rebuild holding less.
func TestReportKeepsWhatARunFinished(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = "sim://?itl=1ms&ttft=1ms", model = "m"),
                      dataset = synthetic(input_tokens = 8, output_tokens = 4), traffic = concurrency(2),
                      requests = 8, sweep = sweep(concurrency = [2, 4]))
`)
	if r := runCLI(t, dir, "run", file, "--out", "fixture", "--no-plots"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	cut := func(t *testing.T, run string, keep func(full []byte) int) {
		t.Helper()
		path := filepath.Join(run, "e", "concurrency4", "records.parquet")
		full, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, full[:keep(full)], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("a point killed as it began", func(t *testing.T) {
		run := filepath.Join(t.TempDir(), "killed")
		copyTree(t, filepath.Join(dir, "fixture"), run)
		os.Remove(filepath.Join(run, "summary.json")) // a killed run has none
		cut(t, run, func(full []byte) int { return frameEnds(t, full)[0] })
		r := runCLI(t, dir, "report", run)
		if r.code != 3 || !strings.Contains(r.stderr, "recovered 0 requests") || !strings.Contains(r.stdout, "concurrency2") {
			t.Fatalf("report: exit %d, want 3 saying what was lost and reporting concurrency2\n%s%s", r.code, r.stdout, r.stderr)
		}
		var summary struct {
			Partial     bool `json:"partial"`
			Experiments []struct {
				Points []json.RawMessage `json:"points"`
			} `json:"experiments"`
		}
		b, err := os.ReadFile(filepath.Join(run, "summary.json"))
		if err != nil || json.Unmarshal(b, &summary) != nil || !summary.Partial || len(summary.Experiments) != 1 || len(summary.Experiments[0].Points) != 1 {
			t.Errorf("summary.json of the points before the lost one (%v): %s", err, b)
		}
	})
	t.Run("a finished run damaged later", func(t *testing.T) {
		run := filepath.Join(t.TempDir(), "damaged")
		copyTree(t, filepath.Join(dir, "fixture"), run)
		before, err := os.ReadFile(filepath.Join(run, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		cut(t, run, func(full []byte) int { return len(full) - 1 }) // the footer cut off
		r := runCLI(t, dir, "report", run)
		if r.code != 0 || !strings.Contains(r.stderr, "left as they are") {
			t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
		}
		if after, _ := os.ReadFile(filepath.Join(run, "summary.json")); !bytes.Equal(after, before) {
			t.Error("the finished run's summary.json was replaced by a rebuild from recovered records")
		}
	})
}
