package main

import (
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"
)

// recordsFlags are taken by the commands that write records.parquet as
// they measure (run, profile, analyze).
type recordsFlags struct {
	// RecordsFlush bounds what a crash can lose of records.parquet.
	RecordsFlush time.Duration `name:"records-flush-interval" env:"LLMBENCH_RECORDS_FLUSH_INTERVAL" help:"How often records.parquet is flushed to disk, the most a crash can lose (0: every 1 s; docs/records.md)."`
}

func (f *recordsFlags) recordsFlush() time.Duration { return f.RecordsFlush }

// flushInterval is the records flush interval the command cmd asks for
// (0, the writer's default, for a command that writes no records).
func flushInterval(cmd any) (time.Duration, error) {
	c, ok := cmd.(interface{ recordsFlush() time.Duration })
	if !ok {
		return 0, nil
	}
	if d := c.recordsFlush(); d < 0 {
		return 0, invalid("--records-flush-interval: got %s, want a positive duration such as 2s", d)
	}
	return c.recordsFlush(), nil
}

// commandFlags were once flags of every command, so scripts may give them
// before the command (`llmbench --log-format json run s.star`).
var commandFlags = []string{"--log-level", "--log-format", "--records-flush-interval"}

// hoistCommandFlags moves commandFlags given before the command to just
// after it, where a command that takes them reads them and one that does
// not refuses them by name. Any other flag before the command leaves the
// line as given.
func hoistCommandFlags(args []string) []string {
	var moved []string
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(args[i], "=")
		switch {
		case slices.Contains(commandFlags, name):
			moved = append(moved, args[i])
			if !hasValue && i+1 < len(args) {
				i++
				moved = append(moved, args[i])
			}
		case strings.HasPrefix(name, "-") || len(moved) == 0:
			return args
		default:
			return slices.Concat([]string{args[i]}, moved, args[i+1:])
		}
	}
	return args
}

// unsetByZero are flags whose zero value means "not given", so an explicit
// zero would silently become the default: `--concurrency 0` would measure
// concurrency 1 and `--request-rate 0` a closed loop.
var unsetByZero = map[string]string{
	"concurrency":  "want >= 1 (leave it out for the default, 1)",
	"request-rate": "want > 0 requests per second (leave it out for a closed loop)",
}

// refuseExplicitZeros is exit 2 for a flag of unsetByZero given as 0.
func refuseExplicitZeros(kctx *kong.Context) error {
	for _, f := range kctx.Flags() {
		want, ok := unsetByZero[f.Name]
		if !ok || !f.Set {
			continue
		}
		if v := kctx.FlagValue(f); v == 0 || v == 0.0 {
			return invalid("--%s: got 0, %s", f.Name, want)
		}
	}
	return nil
}
