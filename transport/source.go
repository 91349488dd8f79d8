package transport

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// MaxSourceAddresses bounds a --source-address list: 4096 local addresses
// times ~28k ephemeral ports each is far more connections than one
// process can hold, and a typo such as 10.0.0.1-10.9.0.1 is refused
// instead of allocating millions of entries.
const MaxSourceAddresses = 4096

// ParseSourceAddresses reads local addresses to bind outgoing
// connections to, each spec one address ("127.0.0.2") or an inclusive
// range ("127.0.0.2-127.0.0.9"). Several addresses take one process past
// the ~28k ephemeral ports of one (source, destination) pair. Every
// address must belong to this machine: on Linux all of 127.0.0.0/8 is
// loopback, otherwise it must be an address of a local interface.
func ParseSourceAddresses(specs []string) ([]netip.Addr, error) {
	if len(specs) == 0 {
		return nil, errors.New("got an empty list, want addresses such as 127.0.0.2 or a range 127.0.0.2-127.0.0.9")
	}
	local, err := localAddresses()
	if err != nil {
		return nil, err
	}
	var out []netip.Addr
	seen := map[netip.Addr]bool{}
	for _, spec := range specs {
		addrs, err := parseRange(spec)
		if err != nil {
			return nil, err
		}
		for _, a := range addrs {
			if !isLocal(a, local) {
				return nil, fmt.Errorf("%s is not an address of this machine: a connection cannot be bound to it (want a loopback address such as 127.0.0.2 or a local interface's address)", a)
			}
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
		if len(out) > MaxSourceAddresses {
			return nil, fmt.Errorf("%q: more than %d addresses in all", spec, MaxSourceAddresses)
		}
	}
	return out, nil
}

// parseRange expands "a" or "a-b" (inclusive, same family, a <= b).
func parseRange(spec string) ([]netip.Addr, error) {
	lo, hi, isRange := strings.Cut(strings.TrimSpace(spec), "-")
	first, err := netip.ParseAddr(strings.TrimSpace(lo))
	if err != nil {
		return nil, fmt.Errorf("%q: want an IP address such as 127.0.0.2 or a range 127.0.0.2-127.0.0.9", spec)
	}
	first = first.Unmap()
	if !isRange {
		return []netip.Addr{first}, nil
	}
	last, err := netip.ParseAddr(strings.TrimSpace(hi))
	if err != nil {
		return nil, fmt.Errorf("%q: the range's end is not an IP address; want first-last such as 127.0.0.2-127.0.0.9", spec)
	}
	last = last.Unmap()
	switch {
	case first.Is4() != last.Is4():
		return nil, fmt.Errorf("%q: the range mixes IPv4 and IPv6", spec)
	case last.Less(first):
		return nil, fmt.Errorf("%q: the range ends before it starts; want first-last with first <= last, such as %s-%s", spec, last, first)
	}
	var out []netip.Addr
	for a := first; ; a = a.Next() {
		out = append(out, a)
		if a == last {
			return out, nil
		}
		if len(out) >= MaxSourceAddresses {
			return nil, fmt.Errorf("%q: more than %d addresses", spec, MaxSourceAddresses)
		}
	}
}

// localAddresses are the addresses of this machine's interfaces, with the
// prefix of each loopback one (Linux answers for all of 127.0.0.0/8).
func localAddresses() ([]net.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("listing this machine's addresses: %v", err)
	}
	return addrs, nil
}

func isLocal(a netip.Addr, local []net.Addr) bool {
	for _, l := range local {
		n, ok := l.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(n.IP)
		if !ok {
			continue
		}
		ip = ip.Unmap()
		if ip == a {
			return true
		}
		ones, _ := n.Mask.Size()
		if ip.IsLoopback() && a.Is4() && netip.PrefixFrom(ip, ones).Masked().Contains(a) {
			return true
		}
	}
	return false
}
