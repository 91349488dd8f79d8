package gpflags

import (
	"fmt"
	"slices"
	"strings"
)

// multiValueFlags are GenAI-Perf flags that take several space-separated
// values after one flag (argparse nargs="+"), e.g. `--goodput ttft:5 itl:2`.
// Kong takes one value per flag, so such lists are rewritten as repeats.
var multiValueFlags = map[string]bool{
	"-m": true, "--model": true,
	"-g": true, "--goodput": true,
	"--server-metrics-url": true, "--server-metrics-urls": true,
	"--audio-depths": true, "--audio-sample-rates": true,
}

// valueBoolFlags are GenAI-Perf booleans declared with argparse type=bool,
// which take a value (`--fixed-schedule True`); kong wants `--flag=true`.
var valueBoolFlags = map[string]bool{"--fixed-schedule": true}

// NormalizeArgs rewrites `--flag a b c` into `--flag a --flag b --flag c`
// for multiValueFlags, stopping at the next flag or a bare `--`, and
// `--fixed-schedule True` into `--fixed-schedule=true`.
func NormalizeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if valueBoolFlags[a] && i+1 < len(args) && isBoolWord(args[i+1]) {
			out = append(out, a+"="+strings.ToLower(args[i+1]))
			i++
			continue
		}
		out = append(out, a)
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if !multiValueFlags[a] || i+1 >= len(args) || args[i+1] == "--" {
			continue // a bare -- ends the flags: it is no flag's value
		}
		out = append(out, args[i+1])
		i++
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, a, args[i+1])
			i++
		}
	}
	return out
}

func isBoolWord(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "1", "0":
		return true
	}
	return false
}

// paReplacements maps perf_analyzer options that GenAI-Perf scripts pass
// after a bare `--` to what llmbench offers instead.
var paReplacements = map[string]string{
	"--request-distribution":       "--request-distribution poisson|gamma|constant",
	"--max-threads":                "nothing (llmbench has no thread cap)",
	"--measurement-interval":       "--measurement-interval MS",
	"-p":                           "--measurement-interval MS",
	"--request-count":              "--request-count N",
	"--warmup-request-count":       "--warmup-request-count N",
	"--concurrency-range":          "--concurrency N (a range: llmbench analyze --sweep-range)",
	"--request-rate-range":         "--request-rate R (a range: llmbench analyze --sweep-type request_rate)",
	"-H":                           "-H/--header",
	"--stability-percentage":       "--stability-percentage P (with --measurement-interval)",
	"-s":                           "--stability-percentage P (with --measurement-interval)",
	"--ssl-https-verify-peer":      "--insecure (to skip verification)",
	"--ssl-https-verify-host":      "--insecure (to skip verification)",
	"--max-concurrency":            "--max-concurrency N (under --request-rate)",
	"--request-parameter":          "--extra-inputs name:value",
	"--input-data":                 "--input-file",
	"--session-concurrency":        "nothing yet (multi-turn sessions are not built yet)",
	"--fixed-schedule":             "--fixed-schedule",
	"--request-intervals":          "--input-file payload:FILE with --fixed-schedule",
	"--periodic-concurrency-range": "llmbench analyze --sweep-range",
}

// PassthroughError refuses profile and analyze arguments after a bare
// `--`, which GenAI-Perf hands to perf_analyzer verbatim. llmbench sends
// the requests itself, so they would be silently lost; the error says
// which llmbench flags do the same.
func PassthroughError(args []string) error {
	cmd := command(args)
	at := slices.Index(args, "--")
	if (cmd != "profile" && cmd != "analyze") || at < 0 || at == len(args)-1 {
		return nil
	}
	rest := args[at+1:]
	var uses []string
	for _, a := range rest {
		name, _, _ := strings.Cut(a, "=")
		if r, ok := paReplacements[name]; ok {
			uses = append(uses, name+" → "+r)
		}
	}
	if len(uses) == 0 {
		uses = []string{"--request-distribution, --max-concurrency, --request-count, --measurement-interval, " +
			"--warmup-request-count, --request-timeout, -H/--header, --insecure (llmbench " + cmd + " --help lists them all)"}
	}
	return fmt.Errorf("%s: arguments after -- (%s) are for perf_analyzer, which GenAI-Perf ran; llmbench has no perf_analyzer "+
		"and sends the requests itself, so use its own flags instead: %s", cmd, strings.Join(rest, " "), strings.Join(uses, "; "))
}

// CommandError refuses, with what to use instead, GenAI-Perf's
// `compare -f/--files A B` (or `--config YAML`), whose llmbench namesake
// takes the runs as arguments.
func CommandError(args []string) error {
	if command(args) != "compare" {
		return nil
	}
	for _, a := range args {
		if a == "--" {
			return nil
		}
		name, _, _ := strings.Cut(a, "=")
		if name == "-f" || name == "--files" || name == "--config" {
			return fmt.Errorf("compare %s: that is GenAI-Perf's compare (side-by-side plots from files or a YAML config); "+
				"llmbench compare takes the runs as arguments and judges them statistically: llmbench compare BASELINE CANDIDATE... "+
				"(run folders, artifact folders, records.parquet or GenAI-Perf profile_export.json files; llmbench compare --help)", name)
		}
	}
	return nil
}

// command returns the subcommand: the first argument that is neither a
// flag nor the value of a global flag.
func command(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return ""
		case a == "--log-level" || a == "--log-format":
			i++
		case !strings.HasPrefix(a, "-"):
			return a
		}
	}
	return ""
}
