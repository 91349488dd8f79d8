package main

import (
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/llmbench/llmbench/runtime/gpflags"
	"github.com/llmbench/llmbench/transport"
)

// profile and analyze without --stream-idle-timeout plan the documented
// default idle timeout (transport.DefaultIdleTimeout, 60 s in README.md and
// docs/analyze.md), so a server that takes a request and never answers
// costs a default run a minute, not the 10-minute request timeout; 0 is
// still off. Read from the parsed plan, not by waiting a minute
// (TestBlackHoleEndsWithinIdleTimeout waits for a small explicit one).
func TestIdleTimeoutDefault(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"profile", "-m", "m", "-u", "127.0.0.1:1"}, transport.DefaultIdleTimeout},
		{[]string{"analyze", "-m", "m", "-u", "127.0.0.1:1"}, transport.DefaultIdleTimeout},
		{[]string{"profile", "-m", "m", "-u", "127.0.0.1:1", "--stream-idle-timeout", "0"}, 0},
	} {
		var c cli
		parser, err := kong.New(&c, kong.Name("llmbench"), kong.Vars{"version": "test"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.Parse(gpflags.NormalizeArgs(tc.args)); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		flags := &c.Profile.profileFlags
		if tc.args[0] == "analyze" {
			flags = &c.Analyze.profileFlags
		}
		ep, err := flags.gp().Server()
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if ep.IdleTimeout != tc.want {
			t.Errorf("%v: idle timeout %s, want %s", tc.args, ep.IdleTimeout, tc.want)
		}
	}
}
