package httpx

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Why one function: a host compared in one spelling and dialled in another
// is how credentials reach the wrong server. strings.ToLower and EqualFold
// fold Unicode (KELVIN SIGN is "k", LONG S is "s", İ is "i"), while Go's
// transport dials a non-ASCII host by its IDNA form (İ becomes xn--…, a
// name anyone can register). CanonicalHost gives the name the transport
// dials; every origin, allow-list, redirect and loopback decision of both
// servers compares hosts in that form, and the client sends requests to it
// (see outboundTransport), so what was judged is what is reached.

// CanonicalHost returns host (a URL's hostname, with or without the
// brackets of an IPv6 literal, without a port) in the one form hosts are
// compared in:
//   - a name: ASCII, by IDNA's lookup profile (UTS #46, the mapping Go's
//     transport applies before dialling) when it is not ASCII already;
//     lower case by ASCII rules only; without a trailing dot (the root
//     label: "api.example." is "api.example" to DNS);
//   - an IP address: as net/netip prints it (IPv6 lower case, shortest
//     form, without brackets; a zone is kept).
//
// It refuses what no transport dials as written: an empty host or label,
// percent-encoding (url.Parse decodes it; a '%' that is left is not part of
// a name), and characters outside letters, digits, '-', '_' and '.'.
func CanonicalHost(host string) (string, error) {
	if inner, ok := strings.CutPrefix(host, "["); ok {
		inner, ok = strings.CutSuffix(inner, "]")
		if !ok {
			return "", fmt.Errorf("host %s has an opening bracket without its closing one", quoteHost(host))
		}
		return canonicalIPv6(host, inner)
	}
	if strings.Contains(host, ":") {
		return canonicalIPv6(host, host)
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return addr.String(), nil
	}
	if strings.Contains(host, "%") {
		return "", fmt.Errorf("host %s holds a '%%': percent-encoding is not allowed in a host name; write the name itself", quoteHost(host))
	}
	// One root dot is dropped, as written or as mapped (U+3002 is a dot).
	name, rooted := strings.CutSuffix(host, ".")
	if !isASCII(name) {
		if !utf8.ValidString(name) {
			return "", fmt.Errorf("host %s is not valid UTF-8", quoteHost(host))
		}
		ascii, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return "", fmt.Errorf("host %s is not a valid internationalised domain name (%v); write its ASCII (xn--) form", quoteHost(host), idnaReason(err))
		}
		name = ascii
		if !rooted {
			name = strings.TrimSuffix(name, ".")
		}
	}
	name = asciiLower(name)
	if name == "" {
		return "", errors.New("the host is empty")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" {
			return "", fmt.Errorf("host %s has an empty label (two dots in a row, or a leading dot)", quoteHost(host))
		}
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return "", fmt.Errorf("host %s holds %q, which is not allowed in a host name (letters, digits, '-', '_' and '.')", quoteHost(host), rune(c))
		}
	}
	// A name may still be an IPv4 address once mapped (fullwidth digits).
	if addr, err := netip.ParseAddr(name); err == nil {
		return addr.String(), nil
	}
	return name, nil
}

// IsLoopbackHost reports whether host (a hostname, without port) names
// this machine: localhost, 127.0.0.0/8 or ::1 (IPv4-mapped too), judged
// in canonical form, by the name the transport dials.
func IsLoopbackHost(host string) bool {
	host, err := CanonicalHost(host)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}

// canonicalIPv6 returns address, an IPv6 address of host, as net/netip
// prints it. A zone (an interface's name, whose case is its own) is kept
// when it is a plain name.
func canonicalIPv6(host, address string) (string, error) {
	addr, err := netip.ParseAddr(address)
	if err != nil || !addr.Is6() {
		return "", fmt.Errorf("host %s is not an IPv6 address, and only an IPv6 address may hold ':' or be written in brackets", quoteHost(host))
	}
	for _, c := range []byte(addr.Zone()) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return "", fmt.Errorf("host %s has a zone that is not an interface name (letters, digits, '-', '_' and '.')", quoteHost(host))
		}
	}
	return addr.String(), nil
}

// maxQuotedHost bounds how much of a host an error quotes: an answer is
// bounded whatever it was asked.
const maxQuotedHost = 120

// quoteHost quotes host for an error, at most maxQuotedHost bytes of it,
// with its length when it is cut.
func quoteHost(host string) string {
	if len(host) <= maxQuotedHost {
		return strconv.Quote(host)
	}
	cut := maxQuotedHost
	for cut > 0 && !utf8.RuneStart(host[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", host[:cut], len(host))
}

// idnaReason is the idna package's error without its own prefix.
func idnaReason(err error) string {
	return strings.TrimPrefix(err.Error(), "idna: ")
}

// CanonicalHostPort returns u's host and port in canonical form: the host
// as CanonicalHost gives it, the port as a decimal number, the scheme's
// default (80, 443) when u names none.
func CanonicalHostPort(u *url.URL) (host, port string, err error) {
	host, err = CanonicalHost(u.Hostname())
	if err != nil {
		return "", "", err
	}
	port = u.Port()
	if port == "" {
		switch asciiLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
		return host, port, nil
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return "", "", fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	return host, strconv.FormatUint(n, 10), nil
}

// Origin returns scheme://host:port of u in canonical form, the default
// port made explicit, so that two URLs of the same origin compare equal and
// two that reach different servers do not.
func Origin(u *url.URL) (string, error) {
	host, port, err := CanonicalHostPort(u)
	if err != nil {
		return "", err
	}
	return asciiLower(u.Scheme) + "://" + net.JoinHostPort(host, port), nil
}

// SameOrigin reports whether a and b have the same origin. A URL whose host
// has no canonical form shares no origin, not even with itself.
func SameOrigin(a, b *url.URL) bool {
	oa, errA := Origin(a)
	ob, errB := Origin(b)
	return errA == nil && errB == nil && oa == ob
}

// SameHost reports whether a and b (hostnames, without ports) name the same
// host. A host with no canonical form is the same as none.
func SameHost(a, b string) bool {
	ca, errA := CanonicalHost(a)
	cb, errB := CanonicalHost(b)
	return errA == nil && errB == nil && ca == cb
}

// CanonicalURL returns u with its host in canonical form (and the port as
// written), or u itself when it already is. It is where requests go.
func CanonicalURL(u *url.URL) (*url.URL, error) {
	host, err := CanonicalHost(u.Hostname())
	if err != nil {
		return nil, err
	}
	if strings.Contains(host, ":") {
		// url.URL holds a zone decoded ("%eth0"); String writes it "%25eth0".
		host = "[" + host + "]"
	}
	if port := u.Port(); port != "" {
		host += ":" + port
	}
	if host == u.Host {
		return u, nil
	}
	out := *u
	out.Host = host
	return &out, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiLower lowers A-Z only: Unicode case folding is what made look-alike
// hosts equal.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
