package gpconfig

import (
	"errors"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/runtime/failure"
)

// Rewrite turns `config -f FILE [--override-config] [FLAGS...]` in args
// into the command line the file stands for, the flags after it
// overriding the file's settings (refused without --override-config, as
// GenAI-Perf refuses them, -v apart); any other line comes back as given,
// as does `config --help`. passThrough are flags with a value that belong
// to every command (--log-level warn) and are never overrides; longName
// maps a flag as typed (-m) to its long name among a command's flags.
func Rewrite(args, passThrough []string, longName func(command, typed string) string) ([]string, error) {
	i := slices.Index(args, "config")
	if i < 0 || i != slices.IndexFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") }) ||
		slices.Contains(args, "--help") || slices.Contains(args, "-h") {
		return args, nil
	}
	var file string
	override := false
	var rest, kept []string
	for j := i + 1; j < len(args); j++ {
		switch a := args[j]; {
		case a == "-f" || a == "--file":
			if j+1 == len(args) {
				return nil, failure.Inputf("config %s: want the configuration file after it", a)
			}
			j++
			file = args[j]
		case strings.HasPrefix(a, "--file="):
			file = strings.TrimPrefix(a, "--file=")
		case a == "--override-config":
			override = true
		case slices.Contains(passThrough, a) && j+1 < len(args):
			kept = append(kept, a, args[j+1])
			j++
		default:
			rest = append(rest, a)
		}
	}
	if file == "" {
		return nil, failure.Inputf("config: name the configuration file with -f FILE (llmbench create-template writes one)")
	}
	if len(rest) > 0 && !override && slices.ContainsFunc(rest, func(f string) bool { return f != "-v" && f != "--verbose" }) {
		return nil, failure.Inputf("config: %s: give --override-config to let flags override the file's settings (GenAI-Perf's rule)", rest[0])
	}
	cmd, err := Read(file)
	var perr *Error
	switch {
	case errors.As(err, &perr):
		return nil, failure.Inputf("%w", err)
	case err != nil:
		return nil, failure.Inputf("config -f: %w", err)
	}
	return slices.Concat(args[:i], cmd.Args(append(rest, kept...), func(typed string) string { return longName(cmd.Name, typed) })), nil
}
