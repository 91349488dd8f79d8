// Package views prints and serialises the same records under each peer
// tool's metric definitions (SPEC §12): GenAI-Perf's (llmbench's default),
// vLLM bench's, GuideLLM's, LLMPerf's and AIPerf's, each in that tool's
// own console layout — its metric names, units and statistic columns — and
// as the `views` block of summary.json. The arithmetic is metrics.Views;
// docs/metrics.md cites each tool's source for every formula.
package views
