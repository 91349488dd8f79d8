// Package html renders report.html (SPEC §7): one self-contained page
// with the run's configuration, the gate verdicts, the sweep tables, every
// plot, the per-dataset-component breakdown and the errors by class.
//
// The page must open offline and years later, so nothing is fetched: the
// styles are inlined, there is no script, and every plot PNG is embedded
// as a base64 data: URI. GuideLLM's report downloads its template at report
// time; ours deliberately does not.
package html
