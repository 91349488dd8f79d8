package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// GenAI-Perf's sweep values: powers of two without a step (from
// 2^int(log2 min) to 2^int(log2 max)), range(min, max+1, step) with one,
// a list as given; concurrency 1..1024 by default.
func TestParseSweepValues(t *testing.T) {
	cases := []struct {
		typ, rng, list string
		want           []float64
		label          string
	}{
		{"concurrency", "", "", []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, "concurrency1"},
		{"concurrency", "4:64", "", []float64{4, 8, 16, 32, 64}, "concurrency4"},
		{"request_rate", "3:100", "", []float64{2, 4, 8, 16, 32, 64}, "request_rate2"},
		{"request_rate", "1:10:3", "", []float64{1, 4, 7, 10}, "request_rate1"},
		{"request_rate", "", "0.5, 2,10", []float64{0.5, 2, 10}, "request_rate0.5"},
		{"input_sequence_length", "128:1024", "", []float64{128, 256, 512, 1024}, "input_sequence_length128"},
		{"input_sequence_length", "100:300:100", "", []float64{100, 200, 300}, "input_sequence_length100"},
		{"output_sequence_length", "", "64,16,256", []float64{64, 16, 256}, "output_sequence_length64"},
		{"concurrency", "", "3,1,6", []float64{3, 1, 6}, "concurrency3"},
	}
	for _, c := range cases {
		spec, err := parseSweep(c.typ, c.rng, c.list)
		if err != nil {
			t.Errorf("%s %q %q: %v", c.typ, c.rng, c.list, err)
			continue
		}
		if !slices.Equal(spec.values, c.want) {
			t.Errorf("%s %q %q = %v, want %v", c.typ, c.rng, c.list, spec.values, c.want)
		}
		if got := objective(spec.kind, spec.values[0]); got != c.label {
			t.Errorf("%s first point named %q, want %q", c.typ, got, c.label)
		}
	}
}

// Invalid sweeps are invalid input (exit 2) with GenAI-Perf's messages.
func TestParseSweepRejects(t *testing.T) {
	cases := []struct{ typ, rng, list, msg string }{
		{"concurrency", "1:100", "", "must be powers of 2 when sweeping concurrency"},
		{"concurrency", "1:64:2", "", "step is not supported when sweeping concurrency"},
		{"concurrency", "0:8", "", "min/max value must be positive"},
		{"request_rate", "8:8", "", "max must be greater than min"},
		{"request_rate", "8:2", "", "max must be greater than min"},
		{"request_rate", "1:8:0", "", "step value must be positive"},
		{"request_rate", "1", "", "the format must be min:max or min:max:step"},
		{"request_rate", "1:2:3:4", "", "the format must be min:max or min:max:step"},
		{"request_rate", "1.5:8", "", `min value "1.5" must be an int`},
		{"request_rate", "1:x", "", `max value "x" must be an int`},
		{"concurrency", "", "1,2.5", "concurrency values must be integers"},
		{"concurrency", "", "1,0", "values must be positive"},
		{"request_rate", "", "1,-2", "values must be positive"},
		{"request_rate", "", "1,,2", "is not a number"},
		{"concurrency", "", "1,2,1", "1 is given twice"},
		{"concurrency", "1:8", "1,2", "mutually exclusive"},
		{"batch_size", "", "", "--sweep-type batch_size is not supported"},
		{"num_dataset_entries", "", "", "--sweep-type num_dataset_entries is not supported"},
		{"temperature", "", "", `--sweep-type: got "temperature"`},
	}
	for _, c := range cases {
		_, err := parseSweep(c.typ, c.rng, c.list)
		if err == nil || exitCode(err, io.Discard) != exitInvalidInput || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s %q %q: err %v, want exit 2 with %q", c.typ, c.rng, c.list, err, c.msg)
		}
	}
}

// A point's identity ignores the URL and paths (a resumed sweep may move
// server or folder) but not what is measured, and never holds a header
// value.
func TestPointConfigIdentity(t *testing.T) {
	base := profileFlags{Model: []string{"m"}, URL: []string{"a:1"}, Header: []string{"Authorization: Bearer secret"}, ArtifactDir: "x", NumDatasetEntries: 100}
	moved := base
	moved.URL, moved.ArtifactDir, moved.Verbose = []string{"b:2"}, "y", true
	other := base
	other.OutputTokensMean = 7
	key := func(f profileFlags, label string) string {
		b, err := pointConfig(&f, label)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if key(base, "concurrency1") != key(moved, "concurrency1") {
		t.Error("URL or artifact dir changed the identity")
	}
	if key(base, "concurrency1") == key(other, "concurrency1") || key(base, "concurrency1") == key(base, "concurrency2") {
		t.Error("a measured difference left the identity unchanged")
	}
	if k := key(base, "concurrency1"); strings.Contains(k, "secret") || !strings.Contains(k, "authorization") {
		t.Errorf("header in identity: %s", k)
	}
}

// TestParseSweepRangeBounded: a stepped range is counted before it is
// built; 1:MaxInt:1 used to loop forever (v += step wrapped) and
// 1:100000000:1 to plan a hundred million points.
func TestParseSweepRangeBounded(t *testing.T) {
	for _, rng := range []string{"1:9223372036854775807:1", "1:100000000:1", "1:20001:2"} {
		_, err := parseSweep("request_rate", rng, "")
		if err == nil || exitCode(err, io.Discard) != exitInvalidInput || !strings.Contains(err.Error(), "more than the 10000 a sweep may have") {
			t.Errorf("%s: %v", rng, err)
		}
	}
	spec, err := parseSweep("request_rate", "1:9223372036854775807:4611686018427387904", "")
	if err != nil || !slices.Equal(spec.values, []float64{1, 1 + 1<<62}) {
		t.Errorf("got %v, %v", spec.values, err)
	}
	if spec, err := parseSweep("input_sequence_length", "1:20000:2", ""); err != nil || len(spec.values) != 10000 {
		t.Errorf("10000 points refused: %d, %v", len(spec.values), err)
	}
}
