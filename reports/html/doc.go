// Package html renders report.html (SPEC §7) as a reports.Reporter: one
// self-contained page with the run's configuration, check() and the gate
// verdicts, the comparison with a baseline, and per experiment its
// settings, points, sweep table (sweep.TableOf, the console's, laid out
// as a table), steady-state and client-limited notes, telemetry,
// dataset components, conversations, shards, repeats and errors by
// class, then every plot.
//
// The page must open offline and years later, so nothing is fetched: the
// styles are inlined, there is no script, and every plot PNG is embedded
// as a base64 data: URI, from the bytes the caller drew (and wrote to
// disk): the package reads no file. GuideLLM's report downloads its
// template at report time; ours deliberately does not.
package html
