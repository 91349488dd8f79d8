// Package resultset loads what `llmbench compare` compares — a run folder,
// an analyze or profile artifact folder, a point folder, a records.parquet
// or an imported GenAI-Perf profile_export.json — into one shape of
// points with their time-ordered records and summaries, matches two sets
// point by point, and says in words why two sets cannot be compared. The
// statistics are metrics'; this package only decides what is compared
// with what.
package resultset
