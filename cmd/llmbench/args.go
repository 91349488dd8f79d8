package main

import "strings"

// multiValueFlags are GenAI-Perf flags that take several space-separated
// values after one flag (argparse nargs="+"), e.g. `--goodput ttft:5 itl:2`.
// Kong takes one value per flag, so such lists are rewritten as repeats.
var multiValueFlags = map[string]bool{
	"-m": true, "--model": true,
	"-g": true, "--goodput": true,
	"--server-metrics-url": true, "--server-metrics-urls": true,
}

// valueBoolFlags are GenAI-Perf booleans declared with argparse type=bool,
// which take a value (`--fixed-schedule True`); kong wants `--flag=true`.
var valueBoolFlags = map[string]bool{"--fixed-schedule": true}

// normalizeArgs rewrites `--flag a b c` into `--flag a --flag b --flag c`
// for multiValueFlags, stopping at the next flag or a bare `--`, and
// `--fixed-schedule True` into `--fixed-schedule=true`.
func normalizeArgs(args []string) []string {
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
		if !multiValueFlags[a] || i+1 >= len(args) {
			continue
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
