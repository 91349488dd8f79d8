// Command otava runs llmbench's change point detector (metrics.DetectChangePoints)
// on series read as JSON lines from stdin, {"id": "...", "values": [...]},
// and writes one JSON line per series, {"id": "...", "change_points":
// [index, ...]}: the llmbench side of compare.py, which runs Apache Otava
// on the same series and scores both against the known change points
// (run.sh does it all; docs/compare.md, "Change points", has the table).
// It is a measurement tool, not part of llmbench.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/llmbench/llmbench/metrics"
)

type series struct {
	ID     string    `json:"id"`
	Values []float64 `json:"values"`
}

type found struct {
	ID           string `json:"id"`
	ChangePoints []int  `json:"change_points"`
}

func main() {
	opt := metrics.DefaultChangePointOptions()
	flag.IntVar(&opt.Window, "window", opt.Window, "values per split window")
	flag.Float64Var(&opt.MaxPValue, "max-pvalue", opt.MaxPValue, "significance a change point must reach")
	flag.Float64Var(&opt.MinMagnitude, "min-magnitude", opt.MinMagnitude, "smallest relative shift reported")
	flag.Parse()
	if err := run(opt); err != nil {
		fmt.Fprintln(os.Stderr, "otava:", err)
		os.Exit(1)
	}
}

func run(opt metrics.ChangePointOptions) error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var s series
		if err := json.Unmarshal(in.Bytes(), &s); err != nil {
			return err
		}
		cps, err := metrics.DetectChangePoints(s.Values, opt)
		if err != nil {
			return fmt.Errorf("%s: %w", s.ID, err)
		}
		f := found{ID: s.ID, ChangePoints: []int{}}
		for _, c := range cps {
			f.ChangePoints = append(f.ChangePoints, c.Index)
		}
		if err := out.Encode(f); err != nil {
			return err
		}
	}
	return in.Err()
}
