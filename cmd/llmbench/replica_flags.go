package main

import (
	"github.com/llmbench/llmbench/runtime/gpflags"
	"github.com/llmbench/llmbench/runtime/plan"
)

// sourceFlags bind every endpoint of a scenario's experiments to local
// source addresses (run's --source-address; a scenario sets
// endpoint(source_addresses=...)).
type sourceFlags struct {
	SourceAddress []string `sep:"none" help:"Local address or range (127.0.0.2-127.0.0.9) every endpoint's connections are bound to in turn, repeatable, replacing endpoint(source_addresses=): each source address has its own ~28k ephemeral ports to a server."`
}

// apply sets the addresses on every experiment's endpoint.
func (f *sourceFlags) apply(exp *plan.Experiment) error {
	if len(f.SourceAddress) == 0 {
		return nil
	}
	addrs, err := gpflags.SourceAddresses(f.SourceAddress, exp.Endpoint.API)
	if err != nil {
		return err
	}
	exp.Endpoint.SourceAddrs = addrs
	return nil
}
