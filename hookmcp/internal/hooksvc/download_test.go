package hooksvc

import (
	"net/netip"
	"net/url"
	"testing"
)

// TestStorageAddressRule: the storage hop's rule refuses the addresses a
// hostile API could point it at, and is waived only for an API that is
// itself on an internal address.
func TestStorageAddressRule(t *testing.T) {
	for addr, refused := range map[string]bool{
		"127.0.0.1": true, "::1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.0.1": true, "169.254.169.254": true,
		"fe80::1": true, "fd00:ec2::254": true, "100.100.100.200": true, "0.0.0.0": true, "::ffff:10.0.0.1": true, "224.0.0.1": true,
		"93.184.216.34": false, "2606:4700::1111": false, "8.8.8.8": false,
	} {
		if got := publicAddress(netip.MustParseAddr(addr)) != nil; got != refused {
			t.Errorf("publicAddress(%s) refused = %v, want %v", addr, got, refused)
		}
	}
	for base, internal := range map[string]bool{
		"https://webhook.site": false, "https://hooks.example.com/api": false, "http://93.184.216.34": false,
		"http://127.0.0.1:8084": true, "http://[::1]:80": true, "http://10.0.0.5": true, "http://localhost:8084": true,
		"http://hooks:8084": true, "http://hooks.internal:8084": true, "http://box.local": true, "http://a.localhost": true, "http://nas.home.arpa.": true,
	} {
		u, _ := url.Parse(base)
		if got := (&Client{BaseURL: u}).apiOnInternalAddress(); got != internal {
			t.Errorf("apiOnInternalAddress(%s) = %v, want %v", base, got, internal)
		}
	}
}
