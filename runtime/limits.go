package runtime

import (
	"strconv"
	"syscall"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/failure"
)

// filesBesideConnections are the descriptors a run needs besides one per
// connection: its output files, the simulator's listener, stdio, the Go
// runtime's own.
const filesBesideConnections = 64

// CheckOpenFiles refuses a load that needs more connections than this
// process may open (RLIMIT_NOFILE, which Go already raises to its hard
// limit): it would otherwise spin through thousands of connect failures
// and a half-written point. An open loop without a cap cannot be judged
// ahead.
func CheckOpenFiles(l Load) error {
	need := max(l.Concurrency, l.MaxConcurrency)
	if need == 0 {
		return nil
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil
	}
	if uint64(need)+filesBesideConnections <= lim.Cur {
		return nil
	}
	fix := "raise the soft limit (ulimit -n " + strconv.FormatUint(uint64(need)+filesBesideConnections, 10) + ")"
	if uint64(need)+filesBesideConnections > lim.Max {
		fix = "raise the hard limit (limits.conf, systemd LimitNOFILE=, a container's --ulimit nofile=)"
	}
	return failure.Inputf("concurrency %d needs about %d open files, but this process may open %d (ulimit -n; hard limit %d): lower the concurrency to at most %d or %s",
		need, need+filesBesideConnections, lim.Cur, lim.Max, max(int64(lim.Cur)-filesBesideConnections, 0), fix)
}

// bytesPerPromptToken is what a synthetic prompt costs in peak memory per
// token, measured: a word and its space held as the entry's text, again
// in its rendered request body and in inputs.json, plus the garbage
// collector's headroom (100,000 prompts of 500 tokens peaked at 2.8 GB).
const bytesPerPromptToken = 56

// CheckDatasetMemory refuses a synthetic dataset whose prompts would not
// fit in a quarter of this machine's memory (`--num-dataset-entries 1e9`,
// `input_tokens=fixed(1e9)`): it would otherwise be killed for memory, or
// spend minutes writing words, before sending anything. Datasets read
// from files are bounded by the files themselves.
func CheckDatasetMemory(src dataset.Source, spec PointSpec) error {
	if syn, ok := src.(dataset.Synthetic); ok && spec.Input != nil {
		syn.Input = spec.Input
		src = syn
	}
	need, entries, tokens := promptBytes(src)
	total := physicalMemory()
	if total == 0 || need <= float64(total)/4 {
		return nil
	}
	return failure.Inputf("%.0f prompts of about %.0f tokens need about %s of memory, more than a quarter of this machine's %s (the limit for prompts); lower the number of entries or the prompt length",
		entries, tokens, bytesText(need), bytesText(float64(total)))
}

// promptBytes estimates the memory src's prompts take, with how many
// entries it draws and their mean length in tokens.
func promptBytes(src dataset.Source) (bytes, entries, tokens float64) {
	switch s := src.(type) {
	case dataset.Synthetic:
		entries = float64(max(s.Entries, 1))
		tokens = max(s.Input.Mean(), 0) + float64(max(s.PrefixTokens, 0))
		shared := float64(max(s.Prefixes, 1)) * float64(max(s.PrefixTokens, 0))
		return (entries*tokens + shared) * bytesPerPromptToken, entries, tokens
	case dataset.Mix:
		for _, c := range s.Components {
			b, n, t := promptBytes(c)
			bytes, entries, tokens = bytes+b, entries+n, max(tokens, t)
		}
		if s.Entries > 0 && entries > 0 { // drawn to its own size
			bytes *= float64(s.Entries) / entries
			entries = float64(s.Entries)
		}
	}
	return bytes, entries, tokens
}

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
