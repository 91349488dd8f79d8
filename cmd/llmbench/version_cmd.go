package main

import (
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	fmt.Fprintf(e.stdout, "llmbench %s\n", version)
	if info, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(e.stdout, "go %s\n", info.GoVersion)
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.time" {
				fmt.Fprintf(e.stdout, "%s %s\n", s.Key, s.Value)
			}
		}
	}
	return nil
}
