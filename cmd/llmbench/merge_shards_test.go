package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// orderScenario lists its experiments out of alphabetical order, so that
// a merge that orders them by folder name is caught; zeta is a closed-loop
// sweep whose dataset (100 prompts) each shard takes a segment of.
const orderScenario = `
def main(ctx):
    t = endpoint(url = env("SIM_URL"), model = "m")
    d = synthetic(input_tokens = 20, output_tokens = 5)
    return [
        experiment(name = "zeta", endpoint = t, dataset = d, traffic = concurrency(3), requests = 24,
                   sweep = sweep(concurrency = [3, 6])),
        experiment(name = "alpha", endpoint = t, dataset = d, traffic = concurrency(3), requests = 12),
    ]
`

// shardRun runs the scenario as n shard processes and returns their
// output folders and what each printed.
func shardRun(t *testing.T, dir, file string, env []string, n int) ([]string, []cliResult) {
	t.Helper()
	barrier := freeLocalAddr(t)
	outs := make([]string, n)
	results := make([]cliResult, n)
	var wg sync.WaitGroup
	for i := range n {
		outs[i] = filepath.Join(dir, fmt.Sprintf("of%d-shard%d", n, i))
		wg.Go(func() {
			cmd := exec.Command(binary, "run", file, "--shard", fmt.Sprintf("%d/%d", i, n),
				"--barrier", barrier, "--out", outs[i], "--no-plots")
			results[i] = runCommand(t, cmd, dir, env)
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("shard %d/%d: exit %d\n%s%s", i, n, r.code, r.stdout, r.stderr)
		}
	}
	return outs, results
}

// TestMergeKeepsShardsEntriesAndOrder: a shard's console judges no
// capacity for its share of the load and says merge does; merge refuses
// to write into a shard's folder (it truncated its records.parquet) and
// to join shards of runs with different shard counts, naming both; the
// merged records keep each row's shard and a dataset entry that joins to
// inputs.json, unique across shards; the merged run lists its experiments
// in the scenario's order.
func TestMergeKeepsShardsEntriesAndOrder(t *testing.T) {
	t.Parallel()
	sim := startSimCommand(t, "--itl", "1ms", "--ttft", "2ms")
	dir, file := writeScenario(t, orderScenario)
	env := []string{"SIM_URL=" + sim}
	shards, printed := shardRun(t, dir, file, env, 2)
	for i, r := range printed {
		if strings.Contains(r.stdout, "Saturation:") || strings.Contains(r.stdout, "Knee") ||
			!strings.Contains(r.stdout, fmt.Sprintf("not judged on shard %d/2", i)) {
			t.Errorf("shard %d/2 judges the capacity of its share of the load, or does not say merge does:\n%s", i, r.stdout)
		}
	}

	kept := filepath.Join(shards[0], "zeta", "concurrency6", "records.parquet")
	before, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{shards[0], filepath.Join(shards[1], "merged"), dir} {
		r := runCLIEnv(t, dir, env, "merge", shards[0], shards[1], "--out", out, "--no-plots")
		if r.code != 2 || !strings.Contains(r.stderr, "--out "+out) || !strings.Contains(r.stderr, "the input ") {
			t.Errorf("merge --out %s: exit %d, want 2 naming --out and the input\n%s", out, r.code, r.stderr)
		}
	}
	if after, err := os.ReadFile(kept); err != nil || !bytes.Equal(after, before) {
		t.Fatalf("a refused merge changed %s (%d bytes, was %d): %v", kept, len(after), len(before), err)
	}

	merged := filepath.Join(dir, "merged")
	if r := runCLIEnv(t, dir, env, "merge", shards[1], shards[0], "--out", merged, "--no-plots"); r.code != 0 {
		t.Fatalf("merge: exit %d\n%s", r.code, r.stderr)
	}
	var summary struct {
		Experiments []struct {
			Name string `json:"name"`
		} `json:"experiments"`
	}
	if b, err := os.ReadFile(filepath.Join(merged, "summary.json")); err != nil || json.Unmarshal(b, &summary) != nil {
		t.Fatalf("summary.json: %v", err)
	}
	var names []string
	for _, e := range summary.Experiments {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, []string{"zeta", "alpha"}) {
		t.Errorf("merged experiments %v, want the scenario's order [zeta alpha]", names)
	}
	for _, point := range []string{"zeta/concurrency3", "zeta/concurrency6", "alpha/concurrency3"} {
		assertShardEntries(t, filepath.Join(merged, point))
	}

	other, _ := shardRun(t, dir, file, env, 3)
	r := runCLIEnv(t, dir, env, "merge", shards[0], other[1], "--out", filepath.Join(dir, "mixed"), "--no-plots")
	if r.code != 2 || !strings.Contains(r.stderr, "shard counts differ") || !strings.Contains(r.stderr, "shard 1 of 3") || !strings.Contains(r.stderr, "of 2") {
		t.Errorf("merge of a 2-shard and a 3-shard run: exit %d, want 2 naming the counts\n%s", r.code, r.stderr)
	}
}

// assertShardEntries: every merged row names the shard that measured it,
// both shards are there, and a row's dataset entry indexes inputs.json
// (the whole dataset, of which each shard sent a segment): no entry is
// measured twice.
func assertShardEntries(t *testing.T, point string) {
	t.Helper()
	type row struct {
		Shard int32 `parquet:"shard"`
		Entry int64 `parquet:"dataset_entry"`
	}
	rows, err := parquet.ReadFile[row](filepath.Join(point, "records.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var inputs struct {
		Data []json.RawMessage `json:"data"`
	}
	if b, err := os.ReadFile(filepath.Join(point, "inputs.json")); err != nil || json.Unmarshal(b, &inputs) != nil {
		t.Fatalf("%s: inputs.json: %v", point, err)
	}
	by := map[int64]int32{}
	count := map[int32]int{}
	for _, r := range rows {
		count[r.Shard]++
		if r.Entry < 0 || r.Entry >= int64(len(inputs.Data)) {
			t.Errorf("%s: shard %d row has dataset_entry %d, beyond inputs.json's %d entries", point, r.Shard, r.Entry, len(inputs.Data))
		}
		// No shard sends more than its segment of the dataset here, so
		// no prompt, and no entry, is sent twice.
		if s, seen := by[r.Entry]; seen {
			t.Errorf("%s: dataset_entry %d measured twice (shards %d and %d): the entry does not say which prompt was sent", point, r.Entry, s, r.Shard)
		}
		by[r.Entry] = r.Shard
	}
	if len(count) != 2 || count[0] == 0 || count[1] == 0 {
		t.Errorf("%s: rows per shard column value %v, want both shards' rows", point, count)
	}
}
