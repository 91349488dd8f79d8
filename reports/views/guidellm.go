package views

import (
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
)

// guideLLMText is the two tables of `guidellm benchmark`'s console
// (src/guidellm/benchmark/outputs/console.py) that carry its metric
// definitions: "Request Latency Statistics (Completed Requests)" (median
// and p95 of request latency in s and TTFT, TTFOT, ITL and TPOT in ms) and
// "Server Throughput Statistics (All Requests)" (concurrency median and
// mean, the per-second rates' means), one row for the point.
func guideLLMText(r *genaiperf.Run, v *metrics.GuideLLMView) string {
	strategy := guideCol{"Benchmark", "Strategy", "", guideStrategy(r)}
	latency := []guideCol{strategy}
	for _, m := range []struct {
		group, name string
		d           metrics.GuideLLMDist
	}{
		{"Request Latency", "Sec", v.RequestLatency}, {"TTFT", "ms", v.TTFT}, {"TTFOT", "ms", v.TTFOT},
		{"ITL", "ms", v.ITL}, {"TPOT", "ms", v.TPOT},
	} {
		latency = append(latency, guideCol{m.group, m.name, "Mdn", guideNum(m.d.Median)},
			guideCol{m.group, m.name, "p95", guideNum(m.d.P95)})
	}
	throughput := []guideCol{strategy,
		{"Requests", "Concurrency", "Mdn", guideNum(v.RequestConcurrency.Median)},
		{"Requests", "Concurrency", "Mean", guideNum(v.RequestConcurrency.Mean)},
		{"Requests", "Per Sec", "Mean", guideNum(v.RequestsPerSecond)},
		{"Input Tokens", "Per Sec", "Mean", guideNum(v.PromptTokensPerSecond)},
		{"Output Tokens", "Per Sec", "Mean", guideNum(v.OutputTokensPerSecond)},
		{"Total Tokens", "Per Sec", "Mean", guideNum(v.TokensPerSecond)},
	}
	return "\n" + guideTable("Request Latency Statistics (Completed Requests)", latency) +
		"\n" + guideTable("Server Throughput Statistics (All Requests)", throughput)
}

// guideStrategy names the point's load as GuideLLM names its strategies.
func guideStrategy(r *genaiperf.Run) string {
	switch {
	case r.Stimulus.FixedSchedule:
		return "replay"
	case r.Stimulus.Mode() == "concurrency":
		return "concurrent"
	case r.RequestDistribution == "poisson":
		return "poisson"
	}
	return "constant"
}

// guideNum is GuideLLM's safe_format_number at its table precision, 1.
func guideNum(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// guideCol is one column of a GuideLLM table: three header rows (group,
// name, statistic) over one value.
type guideCol struct{ group, name, units, value string }

// guideTable renders a table as GuideLLM's Console.print_table does
// (src/guidellm/utils/console.py): cells padded by a space and
// left-justified, identical adjacent header cells merged into one spanning
// cell (under the same cell above), "|===|" rules above and below and
// "|---|" under the headers, the title after GuideLLM's info icon.
func guideTable(title string, cols []guideCol) string {
	n := len(cols)
	raw := make([][3]string, n)
	hdr := make([][3]string, n)
	widths := make([]int, n)
	values := make([]string, n)
	for c, col := range cols {
		raw[c] = [3]string{col.group, col.name, col.units}
		values[c] = guidePad(col.value)
		widths[c] = len(values[c])
		for row, s := range raw[c] {
			hdr[c][row] = guidePad(s)
			widths[c] = max(widths[c], len(hdr[c][row]))
		}
	}
	for row := range 3 {
		guideMerge(hdr, raw, widths, row)
	}
	var b strings.Builder
	b.WriteString("ℹ " + title + "\n")
	rule := func(fill string) {
		cells := make([]string, n)
		for c, w := range widths {
			cells[c] = strings.Repeat(fill, w)
		}
		b.WriteString("|" + strings.Join(cells, "|") + "|\n")
	}
	rule("=")
	for row := range 3 {
		rowWidths := append([]int(nil), widths...)
		for c := range n {
			if hdr[c][row] == "" {
				continue
			}
			end := c + 1
			for end < n && hdr[end][row] == "" {
				rowWidths[c] += widths[end]
				rowWidths[end] = 0
				end++
			}
		}
		cells := make([]string, n)
		for c := range n {
			cells[c] = ljust(hdr[c][row], rowWidths[c])
		}
		b.WriteString("|" + strings.Join(cells, "|") + "|\n")
	}
	rule("-")
	cells := make([]string, n)
	for c := range n {
		cells[c] = ljust(values[c], widths[c])
	}
	b.WriteString("|" + strings.Join(cells, "|") + "|\n")
	rule("=")
	return b.String()
}

// guideMerge merges one header row's runs of equal non-empty cells whose
// cells above are equal too, keeping the first, and widens the run's
// columns (evenly, the first ones taking the remainder) when the merged
// text is wider than they are together.
func guideMerge(hdr, raw [][3]string, widths []int, row int) {
	n := len(hdr)
	start := -1
	for c := 0; c <= n; c++ {
		if c < n && start >= 0 && hdr[c][row] != "" && hdr[c][row] == hdr[start][row] &&
			(row == 0 || raw[start][row-1] == raw[c][row-1]) {
			continue
		}
		if start >= 0 {
			for k := start + 1; k < c; k++ {
				hdr[k][row] = ""
			}
			current := 0
			for k := start; k < c; k++ {
				current += widths[k]
			}
			if need := len(hdr[start][row]); need > current {
				diff, count := need-current, c-start
				per, extra := diff/count, diff%count
				for k := start; k < c; k++ {
					widths[k] += per
					if extra > 0 {
						widths[k]++
						extra--
					}
				}
			}
		}
		start = c
	}
}

// guidePad adds GuideLLM's one-space padding to a non-empty cell.
func guidePad(s string) string {
	if s == "" {
		return ""
	}
	return " " + s + " "
}

func ljust(s string, w int) string { return s + strings.Repeat(" ", max(0, w-len(s))) }
