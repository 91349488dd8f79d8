// Package storedrun owns reading what llmbench stored of a run: the
// records.parquet files `run`, `profile`, `analyze` and `merge` write, of
// every schema version (a killed run's file recovered beside it first),
// and the GenAI-Perf / perf_analyzer profile_export.json files `report`
// and `compare` import. Open gives a path's points; each repeat has its
// plan (what was configured: the saved PointRecord, or what a version 1
// file's run description tells), its outcome (summary, components,
// replicas, telemetry) and its records, streamed from the file a page at
// a time and never all held. Rebuild turns a run's stored points back
// into the ExperimentResults the run produced.
//
// It exists so that `report`, `compare`, `merge`, baseline gates and
// `run --resume` read a stored run one way: before it, two readers
// summarised records.parquet again into two models. Writing the files is
// reports/artifacts' job; storedruntest writes fixture folders with
// artifacts' real writers, so tests need no server.
package storedrun
