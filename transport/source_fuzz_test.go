package transport

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzSourceAddresses: a --source-address value is refused with an error,
// or is at most MaxSourceAddresses distinct addresses of this machine; a
// range "a-b" that parses gives a, a.Next(), ... up to b, all of one family.
func FuzzSourceAddresses(f *testing.F) {
	for _, s := range []string{"127.0.0.2", "127.0.0.2-127.0.0.9", " 127.0.0.1 - 127.0.0.3 ", "::1", "::1-::2", "::ffff:127.0.0.1",
		"127.0.0.9-127.0.0.2", "127.0.0.1-::1", "10.0.0.1-10.9.0.1", "127.0.0.1-127.0.16.0", "fe80::1%lo", "1.2.3.4", "127.0.0.1-",
		"-127.0.0.1", "127.0.0.1-127.0.0.1-127.0.0.2", "255.255.255.255-255.255.255.255", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		addrs, err := parseRange(spec)
		if err != nil {
			if addrs != nil {
				t.Fatalf("%q: addresses and an error", spec)
			}
		} else {
			checkRange(t, spec, addrs)
		}
		local, err := ParseSourceAddresses([]string{spec, spec})
		if err != nil {
			return
		}
		seen := map[netip.Addr]bool{}
		for _, a := range local {
			if seen[a] || !a.IsValid() || a.Is4In6() {
				t.Fatalf("%q gave %v: %v twice, invalid or IPv4-mapped", spec, local, a)
			}
			seen[a] = true
		}
		if len(local) == 0 || len(local) > MaxSourceAddresses || len(local) != len(addrs) {
			t.Fatalf("%q twice gave %d addresses, the range %d", spec, len(local), len(addrs))
		}
	})
}

// checkRange checks a parsed range: bounded, consecutive, one family,
// from its first address to its last.
func checkRange(t *testing.T, spec string, addrs []netip.Addr) {
	t.Helper()
	if len(addrs) == 0 || len(addrs) > MaxSourceAddresses {
		t.Fatalf("%q gave %d addresses", spec, len(addrs))
	}
	for i, a := range addrs {
		if a.Is4In6() || a.Is4() != addrs[0].Is4() || i > 0 && a != addrs[i-1].Next() {
			t.Fatalf("%q: address %d is %v after %v", spec, i, a, addrs[max(i-1, 0)])
		}
	}
	lo, hi, isRange := strings.Cut(strings.TrimSpace(spec), "-")
	first, _ := netip.ParseAddr(strings.TrimSpace(lo))
	if addrs[0] != first.Unmap() {
		t.Fatalf("%q starts at %v", spec, addrs[0])
	}
	if last, _ := netip.ParseAddr(strings.TrimSpace(hi)); isRange && addrs[len(addrs)-1] != last.Unmap() {
		t.Fatalf("%q ends at %v", spec, addrs[len(addrs)-1])
	}
}
