// Package artifacts owns where a run's files go: the layout of an output
// folder, and the checks that every place a run will write to can be
// written before anything is sent, so `llmbench check` and `llmbench run`
// refuse an unwritable --out, --junit or --summary-md alike.
package artifacts
