package runtime

import (
	"fmt"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// CheckOpenFiles refuses a load that needs more connections than this
// process may open (RLIMIT_NOFILE, which Go already raises to its hard
// limit): it would otherwise spin through thousands of connect failures
// and a half-written point. An open loop without a cap is bounded by
// InFlightBound instead, which drops what the limit cannot hold.
func CheckOpenFiles(l plan.Load) error {
	need := max(l.Concurrency, l.MaxConcurrency)
	if need == 0 {
		return nil
	}
	cur, hard, ok := engine.OpenFiles()
	if !ok || uint64(need)+engine.FilesBesideConnections <= cur {
		return nil
	}
	fix := "raise the soft limit (ulimit -n " + strconv.FormatUint(uint64(need)+engine.FilesBesideConnections, 10) + ")"
	if uint64(need)+engine.FilesBesideConnections > hard {
		fix = "raise the hard limit (limits.conf, systemd LimitNOFILE=, a container's --ulimit nofile=)"
	}
	return failure.Inputf("concurrency %d needs about %d open files, but this process may open %d (ulimit -n; hard limit %d): lower the concurrency to at most %d or %s",
		need, need+engine.FilesBesideConnections, cur, hard, max(int64(cur)-engine.FilesBesideConnections, 0), fix)
}

// bytesPerPromptToken is what a synthetic prompt costs in peak memory per
// token, measured: a word and its space held as the entry's text, again
// in its rendered request body and in inputs.json, plus the garbage
// collector's headroom (100,000 prompts of 500 tokens peaked at 2.8 GB).
const bytesPerPromptToken = 56

// bytesPerPassageRef is what a rankings entry holds per passage besides
// the text: the string header pointing at the pooled passage.
const bytesPerPassageRef = 16

// DatasetMemoryError is a dataset whose prompts would not fit in memory:
// it names the parameter that makes it so large, so the scenario's field
// or the CLI's flag can be pointed at.
type DatasetMemoryError struct {
	// Field is the parameter at fault as a scenario writes it: entries,
	// input_tokens, prefix_tokens, prefixes, sessions, turns,
	// system_prompt_tokens or batch_size.
	Field string
	// Value is the field's value (a distribution's mean).
	Value float64
	// Shape says what would be held: "100 sessions of about 1000000000
	// turns of about 550 tokens".
	Shape string
	// Need is the estimated memory, Total the machine's, in bytes.
	Need, Total float64
}

func (e *DatasetMemoryError) Error() string { return e.Describe(e.Field + "=" + numText(e.Value)) }

// Describe is the message with the parameter named as the caller's user
// wrote it: "sessions=1000000000000" in a scenario, "--num-sessions
// 1000000000000" on the command line.
func (e *DatasetMemoryError) Describe(param string) string {
	return fmt.Sprintf("%s: %s need about %s of memory, more than a quarter of this machine's %s (the limit for prompts); lower it",
		param, e.Shape, bytesText(e.Need), bytesText(e.Total))
}

// FailureClass makes a dataset too large to hold invalid input (exit 2).
func (e *DatasetMemoryError) FailureClass() failure.Class { return failure.Input }

// CheckDatasetMemory refuses a generated dataset whose prompts would not
// fit in a quarter of this machine's memory (`--num-dataset-entries
// 1e9`, `input_tokens=fixed(1e9)`, `conversations(sessions=1e9)`,
// `--session-turns-mean 1e9`, `rankings(batch_size=1e9)`): it would
// otherwise be killed for memory, or spend minutes writing words, before
// sending anything. The error is a *DatasetMemoryError. Datasets read
// from files are bounded by the files themselves.
func CheckDatasetMemory(src dataset.Source, spec plan.PointSpec) error {
	if syn, ok := src.(dataset.Synthetic); ok && spec.Input != nil {
		syn.Input = spec.Input
		src = syn
	}
	fp := footprintOf(src)
	total := physicalMemory()
	if total == 0 || fp.bytes <= float64(total)/4 {
		return nil
	}
	field, value := fp.culprit()
	return &DatasetMemoryError{Field: field, Value: value, Shape: fp.shape, Need: fp.bytes, Total: float64(total)}
}

// footprint is the memory a dataset's prompts take, with the sizes it is
// the product of, largest term first, to name the one at fault.
type footprint struct {
	bytes float64
	// sizes are the factors of the largest term: entries and tokens.
	sizes []size
	shape string
}

// size is one parameter a footprint grows with.
type size struct {
	field string
	value float64
}

// culprit is the largest of the sizes: the parameter that, set far too
// high, made the footprint what it is (sessions=1e12 against 550 tokens;
// turns=1e9 against 100 sessions).
func (f footprint) culprit() (string, float64) {
	best := size{field: "entries"}
	for _, s := range f.sizes {
		if s.value > best.value {
			best = s
		}
	}
	return best.field, best.value
}

// plus adds g's memory; the larger term keeps naming the footprint.
func (f footprint) plus(g footprint) footprint {
	if g.bytes > f.bytes {
		f.sizes, f.shape = g.sizes, g.shape
	}
	f.bytes += g.bytes
	return f
}

// footprintOf estimates the memory src's prompts take.
func footprintOf(src dataset.Source) footprint {
	switch s := src.(type) {
	case dataset.Synthetic:
		return syntheticFootprint(s)
	case dataset.Conversations:
		return conversationsFootprint(s)
	case dataset.Rankings:
		return rankingsFootprint(s)
	case dataset.DefaultOutputs:
		return footprintOf(s.Source)
	case dataset.Media: // its pictures and clips are bounded by Media.Build
		return footprintOf(s.Text)
	case dataset.Mix:
		return mixFootprint(s)
	}
	return footprint{}
}

func syntheticFootprint(s dataset.Synthetic) footprint {
	entries := float64(max(s.Entries, 1))
	input, prefix := max(s.Input.Mean(), 0), float64(max(s.PrefixTokens, 0))
	tokens := input + prefix
	prompts := footprint{bytes: entries * tokens * bytesPerPromptToken,
		sizes: []size{{"entries", entries}, {"input_tokens", input}, {"prefix_tokens", prefix}},
		shape: fmt.Sprintf("%.0f prompts of about %.0f tokens", entries, tokens)}
	prefixes := float64(max(s.Prefixes, 1))
	return prompts.plus(footprint{bytes: prefixes * prefix * bytesPerPromptToken,
		sizes: []size{{"prefixes", prefixes}, {"prefix_tokens", prefix}},
		shape: fmt.Sprintf("%.0f shared prefixes of %.0f tokens", prefixes, prefix)})
}

// conversationsFootprint counts every turn's prompt and the system
// prompts; a turn's history is the earlier turns' prompts, held once.
func conversationsFootprint(c dataset.Conversations) footprint {
	sessions := float64(c.Count)
	if sessions <= 0 {
		sessions = 100 // Conversations' own default
	}
	turns, tokens := 1.0, 0.0
	if c.Turns != nil {
		turns = max(c.Turns.Mean(), 1)
	}
	if c.Input != nil {
		tokens = max(c.Input.Mean(), 0)
	}
	prompts := footprint{bytes: sessions * turns * tokens * bytesPerPromptToken,
		sizes: []size{{"sessions", sessions}, {"turns", turns}, {"input_tokens", tokens}},
		shape: fmt.Sprintf("%.0f sessions of about %.0f turns of about %.0f tokens", sessions, turns, tokens)}
	systems := sessions
	if c.SharedSystem {
		systems = 1
	}
	system := float64(max(c.SystemTokens, 0))
	return prompts.plus(footprint{bytes: systems * system * bytesPerPromptToken,
		sizes: []size{{"sessions", systems}, {"system_prompt_tokens", system}},
		shape: fmt.Sprintf("%.0f system prompts of %.0f tokens", systems, system)})
}

// rankingsFootprint counts the pools once and, per entry, its query and
// its batch of passages, each in the entry's rendered body. A passage
// from a file counts one token: its length is the file's to bound.
func rankingsFootprint(r dataset.Rankings) footprint {
	entries := float64(max(r.Entries, 0))
	if entries == 0 {
		entries = 100 // Rankings' own default
	}
	batch := float64(max(r.BatchSize, 1))
	passage, query := max(meanTokens(r.Passages), 1), meanTokens(r.Queries)
	bodies := footprint{bytes: entries * (query*bytesPerPromptToken + batch*(passage*bytesPerPromptToken+bytesPerPassageRef)),
		sizes: []size{{"entries", entries}, {"batch_size", batch}, {"input_tokens", passage}},
		shape: fmt.Sprintf("%.0f queries with %.0f passages of about %.0f tokens each", entries, batch, passage)}
	return bodies.plus(footprintOf(r.Queries)).plus(footprintOf(r.Passages))
}

// meanTokens is a generated source's mean prompt length, 0 for a file.
func meanTokens(src dataset.Source) float64 {
	if s, ok := src.(dataset.Synthetic); ok && s.Input != nil {
		return max(s.Input.Mean(), 0) + float64(max(s.PrefixTokens, 0))
	}
	return 0
}

// mixFootprint adds the components, scaled to the mix's own size when it
// draws one.
func mixFootprint(m dataset.Mix) footprint {
	var fp footprint
	drawn := 0.0
	for _, c := range m.Components {
		cf := footprintOf(c)
		fp = fp.plus(cf)
		for _, s := range cf.sizes {
			if s.field == "entries" || s.field == "sessions" {
				drawn += s.value
				break
			}
		}
	}
	if m.Entries > 0 && drawn > 0 { // drawn to its own size
		fp.bytes *= float64(m.Entries) / drawn
		if float64(m.Entries) > drawn {
			fp.sizes = append(slices.Clone(fp.sizes), size{"entries", float64(m.Entries)})
		}
	}
	return fp
}

// numText writes a parameter's value as a scenario would: 1000000000000, 0.5.
func numText(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// physicalMemory is the machine's RAM in bytes, 0 when unknown.
func physicalMemory() uint64 {
	var info syscall.Sysinfo_t
	if syscall.Sysinfo(&info) != nil {
		return 0
	}
	return uint64(info.Totalram) * uint64(info.Unit)
}

// bytesText writes a byte count for people: "6.5 GiB".
func bytesText(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for ; b >= 1024 && i < len(units)-1; i++ {
		b /= 1024
	}
	return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[i]
}

// maxSchedule is the longest an open loop may plan to take to send its
// requests: a rate that slow is a slip (1e-9 for 1e9, a rate per hour
// for one per second), and a run that waits years for its next send
// looks hung.
const maxSchedule = 24 * time.Hour

// CheckSchedule refuses an open loop (rate(), users(), --request-rate)
// whose count of requests or sessions (what names them), warm-up
// included, would take more than a day to start at its rate. The
// scenario's rate() and the CLI's --request-rate are judged by this one
// rule. A count of turns is judged as if each started at the rate, which
// errs toward refusing only rates below one every 86,400/count seconds.
func CheckSchedule(l plan.Load, count int, what string) error {
	if l.Rate <= 0 || count <= 0 {
		return nil
	}
	secs := float64(count) / l.Rate
	if secs <= maxSchedule.Seconds() {
		return nil
	}
	return failure.Inputf("%d %s at %s per second would take %.3g s, more than a day; raise the rate or lower the count",
		count, what, plan.Num(l.Rate), secs)
}
