package main

import (
	"net/netip"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/transport"
)

// replicaFlags are the endpoint's replicas from repeated -u: none (and no
// selection) for one URL, as endpoint(url=...) leaves them.
func replicaFlags(urls []string, selection string) ([]string, string) {
	if len(urls) < 2 {
		return nil, ""
	}
	return urls, selection
}

// sourceAddresses parses --source-address; nil when none was given.
func sourceAddresses(specs []string, api transport.API) ([]netip.Addr, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	if api == transport.Triton {
		return nil, invalid("--source-address: Triton's gRPC connections are not bound to source addresses; use an HTTP endpoint type")
	}
	addrs, err := transport.ParseSourceAddresses(specs)
	if err != nil {
		return nil, invalid("--source-address: %w", err)
	}
	return addrs, nil
}

// sourceFlags bind every endpoint of a scenario's experiments to local
// source addresses (run's --source-address; a scenario sets
// endpoint(source_addresses=...)).
type sourceFlags struct {
	SourceAddress []string `sep:"none" help:"Local address or range (127.0.0.2-127.0.0.9) every endpoint's connections are bound to in turn, repeatable, replacing endpoint(source_addresses=): each source address has its own ~28k ephemeral ports to a server."`
}

// apply sets the addresses on every experiment's endpoint.
func (f *sourceFlags) apply(exps []runtime.Experiment) error {
	if len(f.SourceAddress) == 0 {
		return nil
	}
	for i := range exps {
		addrs, err := sourceAddresses(f.SourceAddress, exps[i].Endpoint.API)
		if err != nil {
			return err
		}
		exps[i].Endpoint.SourceAddrs = addrs
	}
	return nil
}
