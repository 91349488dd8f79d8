// Package genaiperf writes NVIDIA GenAI-Perf's artifacts from a run's
// results, byte for byte as GenAI-Perf and perf_analyzer write them, so any
// script, dashboard or notebook that reads GenAI-Perf output keeps working
// on llmbench runs and historical runs stay comparable:
//
//   - WriteJSON: profile_export_genai_perf.json (Python json.dumps(indent=2))
//   - WriteCSV: profile_export_genai_perf.csv (Python csv.writer, CRLF)
//   - WriteConsole: the Rich "NVIDIA GenAI-Perf | LLM Metrics" table
//   - WriteProfileExport: perf_analyzer's raw profile_export.json
//   - WriteInputs: inputs.json, the exact payloads that were sent
//   - ArtifactDirName: the run directory name GenAI-Perf would choose
//   - WriteAnalyzeCSV: analyze_export_genai_perf.csv, one row per sweep point
//
// The byte-level fidelity rests on three small imitations of Python kept in
// this package: float repr (pyfloat.go), json.dumps (pyjson.go) and
// csv.writer (csv.go). Where llmbench measures more than GenAI-Perf (errors,
// reasoning models, open-loop schedule lag) the additions are appended after
// GenAI-Perf's own keys, rows and lines, never interleaved, so readers that
// index GenAI-Perf's layout by position or by name are not disturbed.
package genaiperf
