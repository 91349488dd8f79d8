package artifacts

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
)

// MergeOptions tune MergeShards.
type MergeOptions struct {
	// Out is the folder the merged run is written to, laid out as a
	// single-machine run's OUT.
	Out string
	// AllowMissing merges the shards that are there when some are missing
	// or failed, marking the points partial, instead of refusing.
	AllowMissing bool
}

// MergedPoint is one point run as merged: who measured what share, and
// how far apart the shards started.
type MergedPoint struct {
	// Path is the point's folder below the run's (experiment/point[/repeatK]).
	Path   string
	Shards []runtime.ShardShare
	// Missing lists the shards whose records were not found or failed.
	Missing []int
}

// MergeShards gathers the records files that `run --shard I/N` wrote
// into dirs and, per point, writes one records file holding the union of
// every shard's records in completion order, into Out at the point's own
// path. Nothing is averaged: `report` then recomputes every metric, gate
// and file from the union, as if one machine had measured it. A point
// with a shard missing, or one whose shard was cut short, is an error
// naming the shard, unless AllowMissing (then a warning on stderr and a
// partial point).
func MergeShards(stderr io.Writer, dirs []string, opts MergeOptions) ([]MergedPoint, error) {
	groups, err := shardGroups(stderr, dirs)
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, failure.Inputf("no records.parquet of a sharded run under %s", strings.Join(dirs, ", "))
	}
	// In run order, so that the merged run lists its experiments and
	// points in the scenario's order, not its folders' alphabetical one.
	slices.SortStableFunc(groups, func(a, b *shardGroup) int { return cmp.Compare(a.started(), b.started()) })
	var merged []MergedPoint
	for _, g := range groups {
		m, err := g.merge(stderr, opts)
		if err != nil {
			return merged, err
		}
		merged = append(merged, m)
	}
	return merged, nil
}

// shardFile is one shard's records of one point run.
type shardFile struct {
	path string
	pf   *storedrun.Repeat
	run  runtime.ShardRun
}

// shardGroup is every shard's records of one point run.
type shardGroup struct {
	rel   string // the point's folder below its run's
	files []shardFile
	count int
}

// shardGroups finds every records file under dirs and groups them by
// point run, checking each was written by a shard of one run.
func shardGroups(stderr io.Writer, dirs []string) ([]*shardGroup, error) {
	byRel := map[string]*shardGroup{}
	var order []*shardGroup
	for _, dir := range dirs {
		paths, err := storedrun.FindRecords(dir)
		if err != nil {
			return nil, failure.Inputf("%s: %w", dir, err)
		}
		for _, path := range paths {
			f, err := openShardFile(stderr, path)
			if err != nil {
				return nil, err
			}
			rel, _ := filepath.Rel(dir, filepath.Dir(path))
			g := byRel[rel]
			if g == nil {
				g = &shardGroup{rel: rel, count: f.run.Count}
				byRel[rel] = g
				order = append(order, g)
			}
			if f.run.Count != g.count {
				first := g.files[0]
				return nil, failure.Inputf("shard counts differ: %s is shard %d of %d, but %s is shard %d of %d; merge the folders of one run, all written with --shard I/%d or all with I/%d",
					path, f.run.Index, f.run.Count, first.path, first.run.Index, first.run.Count, g.count, f.run.Count)
			}
			g.files = append(g.files, f)
		}
	}
	return order, nil
}

// started is when the group's point began: the earliest start of its
// shards (Unix ns), which every shard wrote in its plan.
func (g *shardGroup) started() int64 {
	first := int64(0)
	for i, f := range g.files {
		if i == 0 || f.run.Started < first {
			first = f.run.Started
		}
	}
	return first
}

func openShardFile(stderr io.Writer, path string) (shardFile, error) {
	pf, err := storedrun.OpenFile(stderr, path)
	if err != nil {
		return shardFile{}, err
	}
	if pf.Plan == nil || pf.Plan.Shard == nil {
		return shardFile{}, failure.Inputf("%s: not written by `llmbench run --shard I/N` (no shard in its saved plan)", path)
	}
	return shardFile{path: path, pf: pf, run: *pf.Plan.Shard}, nil
}

// merge writes the group's union into opts.Out.
func (g *shardGroup) merge(stderr io.Writer, opts MergeOptions) (MergedPoint, error) {
	m := MergedPoint{Path: g.rel}
	present, err := g.check(stderr, opts.AllowMissing, &m)
	if err != nil {
		return m, err
	}
	dir := filepath.Join(opts.Out, g.rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return m, failure.Runf("%w", err)
	}
	first := present[0]
	plan := *first.pf.Plan
	plan.Shard = nil
	plan.Partial = len(m.Missing) > 0 || anyPartial(present)
	if err := writeUnion(filepath.Join(dir, storedrun.RecordsFile), first.pf, present, &plan); err != nil {
		return m, err
	}
	m.Shards = plan.Shards
	mergeExports(stderr, dir, first.pf.Described.ProfileExportFile, present)
	// The dataset and the server's telemetry are the same seen from every
	// shard: shard 0's (the first present) stand for the run.
	for _, name := range []string{"inputs.json", records.TelemetryFile} {
		copyIfThere(filepath.Join(filepath.Dir(first.path), name), filepath.Join(dir, name))
	}
	return m, nil
}

// check lists the missing and failed shards of the group: an error, or a
// warning under allowMissing. It returns the shards to merge, by index.
func (g *shardGroup) check(stderr io.Writer, allowMissing bool, m *MergedPoint) ([]shardFile, error) {
	byIndex := map[int]shardFile{}
	for _, f := range g.files {
		if _, dup := byIndex[f.run.Index]; dup {
			return nil, failure.Inputf("%s: shard %d appears twice (%s and %s)", g.rel, f.run.Index, byIndex[f.run.Index].path, f.path)
		}
		byIndex[f.run.Index] = f
	}
	var present []shardFile
	var problems []string
	for i := range g.count {
		f, ok := byIndex[i]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("shard %d of %d is missing", i, g.count))
			m.Missing = append(m.Missing, i)
		case f.pf.Plan.Partial && !allowMissing:
			problems = append(problems, fmt.Sprintf("shard %d of %d did not finish the point (%s is partial)", i, g.count, f.path))
			m.Missing = append(m.Missing, i)
		default:
			present = append(present, f)
		}
	}
	switch {
	case len(problems) == 0:
	case !allowMissing || len(present) == 0:
		return nil, failure.Inputf("%s: %s (--allow-missing merges the others into a partial result)", g.rel, strings.Join(problems, "; "))
	default:
		fmt.Fprintf(stderr, "llmbench: warning: %s: %s; the merged point is partial\n", g.rel, strings.Join(problems, "; "))
	}
	return present, nil
}

func anyPartial(fs []shardFile) bool {
	return slices.ContainsFunc(fs, func(f shardFile) bool { return f.pf.Plan.Partial })
}

// writeUnion writes every shard's records to path in completion order (a
// k-way merge of files each already in completion order, so memory stays
// bounded), with the first shard's run description and the merged plan.
// Each row keeps its shard's index in the shard column, and its dataset
// entry, which numbers the whole dataset on every shard (inputs.json, the
// first shard's, lists it whole). Request ids stay unique: an open
// loop's ids already number its whole schedule; a closed loop's, and a
// conversation's (turns are numbered per shard), shard-local id j of
// shard i becomes j·N + i.
// The plan records each shard's share of the requests and its start.
func writeUnion(path string, first *storedrun.Repeat, shards []shardFile, plan *runtime.PointRecord) error {
	f, err := os.Create(path)
	if err != nil {
		return failure.Runf("%w", err)
	}
	defer f.Close()
	meta := first.Meta
	meta.Shard = 0
	// No flush timer: a merge measures nothing a crash could lose (the
	// shards' files stay), so row groups end by size alone.
	w, err := records.NewWriterOptions(f, meta, records.Options{FlushInterval: -1})
	if err != nil {
		return failure.Runf("%w", err)
	}
	counts := map[int]int{}
	closed := plan.Plan.Load.Concurrency > 0
	err = mergeInOrder(shards, func(i int, r *metrics.Record) error {
		counts[shards[i].run.Index]++
		w.SetShard(shards[i].run.Index) // the shard column keeps who measured it
		if closed || r.Turn > 0 {
			r.ID = r.ID*int64(shards[i].run.Count) + int64(shards[i].run.Index)
		}
		return w.Write(*r)
	})
	if err != nil {
		return err
	}
	for _, s := range shards {
		plan.Shards = append(plan.Shards, runtime.ShardShare{Index: s.run.Index, Requests: counts[s.run.Index],
			Planned: s.run.Planned, Started: s.run.Started})
	}
	w.Finish(first.Meta.TokenCounting, first.Meta.Config)
	saved, err := plan.Encode()
	if err != nil {
		return failure.Runf("%w", err)
	}
	w.SetPointRecord(saved)
	if err := w.Close(); err != nil {
		return failure.Runf("%s: %w", path, err)
	}
	return f.Close()
}

// mergeInOrder calls fn with every record of every shard, earliest
// finished first (ties by send time, then shard).
func mergeInOrder(shards []shardFile, fn func(shard int, r *metrics.Record) error) error {
	type head struct {
		rec  metrics.Record
		next func() (metrics.Record, bool)
		stop func()
	}
	heads := make([]*head, 0, len(shards))
	var readErrs []error
	for i := range shards {
		next, stop := iter.Pull(recordsOf(shards[i].pf, &readErrs))
		h := &head{next: next, stop: stop}
		defer stop()
		if r, ok := next(); ok {
			h.rec = r
			heads = append(heads, h)
		} else {
			heads = append(heads, nil)
		}
	}
	for {
		best := -1
		for i, h := range heads {
			if h != nil && (best < 0 || before(&h.rec, &heads[best].rec)) {
				best = i
			}
		}
		if best < 0 {
			return errors.Join(readErrs...)
		}
		if err := fn(best, &heads[best].rec); err != nil {
			return err
		}
		if r, ok := heads[best].next(); ok {
			heads[best].rec = r
		} else {
			heads[best] = nil
		}
	}
}

func before(a, b *metrics.Record) bool {
	return cmp.Or(cmp.Compare(a.Done, b.Done), cmp.Compare(a.Sent, b.Sent)) < 0
}

// recordsOf yields a file's records in order, noting a read error.
func recordsOf(pf *storedrun.Repeat, errs *[]error) iter.Seq[metrics.Record] {
	return func(yield func(metrics.Record) bool) {
		for r, err := range pf.All() {
			if err != nil {
				*errs = append(*errs, failure.Inputf("%s: %w", pf.Path, err))
				return
			}
			if !yield(*r) {
				return
			}
		}
	}
}

// mergeExports writes the point's profile_export.json from the shards'
// (genaiperf.MergeProfileExports). One that cannot be merged (a shard's
// export is missing or was cut short by a kill) is a warning: the point's
// other files are made from its records and stand without it.
func mergeExports(stderr io.Writer, dir, name string, shards []shardFile) {
	paths := make([]string, len(shards))
	for i, s := range shards {
		paths[i] = filepath.Join(filepath.Dir(s.path), name)
	}
	out := filepath.Join(dir, name)
	if err := WriteFile(out, func(w io.Writer) error { return genaiperf.MergeProfileExports(w, paths) }); err != nil {
		os.Remove(out)
		fmt.Fprintf(stderr, "llmbench: warning: not merged: %v\n", err) // err names out, then the shard
	}
}

func copyIfThere(from, to string) {
	b, err := os.ReadFile(from)
	if err == nil {
		_ = os.WriteFile(to, b, 0o644)
	}
}

// writeShards says, under a merged point's table, how many shards
// measured it, each one's share of the requests and how far apart they
// started.
func writeShards(w io.Writer, shares []runtime.ShardShare) {
	if len(shares) > 0 {
		fmt.Fprintf(w, "Shards: %s\n", runtime.DescribeShards(shares))
	}
}
