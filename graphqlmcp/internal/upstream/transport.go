package upstream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mcpforge/servers/shared/httpx"
)

// NewHTTPClient returns the outbound client graphqlmcp uses. It follows up
// to 10 redirects that keep the method and body (307, 308), judging each hop as if a caller had named it (Gate), and
// drops every header but Accept, Content-Type and User-Agent on a hop to
// another origin, so credentials meant for one endpoint never reach another.
// It refuses to reach link-local and cloud metadata addresses, checking
// every address the host's name resolves to (before the request goes to a
// proxy too), unless the URL being fetched was allowed to.
func NewHTTPClient(userAgent string) *http.Client {
	return NewHTTPClientWith(httpx.Options{UserAgent: userAgent})
}

// NewHTTPClientWith is NewHTTPClient with opts's proxy and resolver (tests
// inject them); its guard and redirect policy are graphqlmcp's own.
func NewHTTPClientWith(opts httpx.Options) *http.Client {
	opts.Guard, opts.CheckRedirect = linkLocalGuard, checkRedirect
	return httpx.NewClient(opts)
}

// keptAcrossOrigins are the headers that survive a redirect to another
// origin.
var keptAcrossOrigins = map[string]bool{"Accept": true, "Content-Type": true, "User-Agent": true}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	// A 301, 302 or 303 turns the POST into a GET without its body: the
	// query would be lost, and the answer (a 400, a page) would say nothing
	// of why. The redirect itself is handed back, to be said as one.
	if req.Method != via[len(via)-1].Method {
		return http.ErrUseLastResponse
	}
	if state := gateFrom(req.Context()); state != nil {
		allowed, err := state.judge(req.URL)
		if err != nil {
			return fmt.Errorf("the endpoint redirected to a URL that is refused: %w", err)
		}
		state.linkLocal.Store(allowed)
	}
	if !httpx.SameOrigin(req.URL, via[0].URL) {
		for name := range req.Header {
			if !keptAcrossOrigins[name] {
				req.Header.Del(name)
			}
		}
	}
	return nil
}

// errLinkLocal is returned when a connection to a link-local or metadata
// address was refused.
var errLinkLocal = errors.New("link-local and cloud metadata addresses are refused")

// A Gate judges every URL a request reaches: the one it was sent to, and each
// redirect hop, as if a caller had named it. It returns whether the URL may
// be a link-local address (the operator named it explicitly), or an error
// that refuses it.
type Gate func(u *url.URL) (linkLocalAllowed bool, err error)

type gateKey struct{}

// gateState travels in a request's context. Redirects are followed one at a
// time on the request's goroutine; the atomic keeps the race detector and
// any future transport honest.
type gateState struct {
	judge     Gate
	linkLocal atomic.Bool
}

// WithGate marks ctx so that requests made with it are judged by gate at
// every redirect hop, and may connect to a link-local address only while the
// URL being fetched was judged allowed to: the first URL when
// linkLocalAllowed, and each hop by gate's own answer, with no exemption
// inherited from the hop before.
func WithGate(ctx context.Context, gate Gate, linkLocalAllowed bool) context.Context {
	state := &gateState{judge: gate}
	state.linkLocal.Store(linkLocalAllowed)
	return context.WithValue(ctx, gateKey{}, state)
}

func gateFrom(ctx context.Context) *gateState {
	state, _ := ctx.Value(gateKey{}).(*gateState)
	return state
}

func linkLocalAllowed(ctx context.Context) bool {
	state := gateFrom(ctx)
	return state != nil && state.linkLocal.Load()
}

// linkLocalGuard is the rule for every address a request reaches (each
// address its name resolves to, checked before connecting, or before the
// request goes to a proxy): no link-local or metadata address, unless the
// URL being fetched was allowed one. A name that resolves to a metadata
// address is caught too.
func linkLocalGuard(ctx context.Context) httpx.AddressRule {
	if linkLocalAllowed(ctx) {
		return nil
	}
	return refuseLinkLocal
}

func refuseLinkLocal(addr netip.Addr) error {
	if isLinkLocalAddr(addr) {
		return errLinkLocal
	}
	return nil
}

// isMetadataName reports the cloud metadata services reachable by name.
func isMetadataName(host string) bool {
	switch host {
	case "metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal":
		return true
	}
	return false
}

// metadataAddresses are cloud metadata services outside the link-local
// ranges.
var metadataAddresses = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IMDS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

// IsLinkLocalHost reports whether host (a name or an address, without port) is
// a link-local address or a cloud metadata host, in any spelling an HTTP
// client or resolver accepts: IPv4 as hex, octal or one integer
// (0xa9fea9fe), and IPv6 forms that carry an IPv4 address (mapped,
// compatible ::169.254.169.254, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo).
// A name that resolves to such an address is caught where it is dialled.
func IsLinkLocalHost(host string) bool {
	// In the form the transport dials: ｍｅｔａｄａｔａ is dialled as metadata.
	if canonical, err := httpx.CanonicalHost(host); err == nil {
		host = canonical
	} else {
		host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	}
	if isMetadataName(host) {
		return true
	}
	addr, ok := parseHostAddr(host)
	return ok && isLinkLocalAddr(addr)
}

// parseHostAddr parses an IP address in the forms netip takes, and the
// inet_aton forms of IPv4 (1 to 4 parts, each decimal, octal or hex).
func parseHostAddr(host string) (netip.Addr, bool) {
	if zone := strings.IndexByte(host, '%'); zone >= 0 {
		host = host[:zone]
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return addr, true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	values := make([]uint64, len(parts))
	for i, part := range parts {
		v, err := strconv.ParseUint(part, 0, 32)
		if err != nil || part == "" {
			return netip.Addr{}, false
		}
		values[i] = v
	}
	// The last part fills the bytes the others leave: a.b.c.d, a.b.cd,
	// a.bcd, abcd.
	var n uint64
	for i, v := range values[:len(values)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - i))
	}
	last := values[len(values)-1]
	if last >= 1<<(8*(5-len(values))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// isLinkLocalAddr reports link-local and metadata addresses, looking into the
// IPv4 address an IPv6 form carries.
func isLinkLocalAddr(addr netip.Addr) bool {
	addr = addr.WithZone("").Unmap()
	if addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || slices.Contains(metadataAddresses, addr) {
		return true
	}
	if v4, ok := embeddedIPv4(addr); ok {
		return isLinkLocalAddr(v4)
	}
	return false
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	nat64Priv = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour = netip.MustParsePrefix("2002::/16")
	teredo    = netip.MustParsePrefix("2001::/32")
	compat    = netip.MustParsePrefix("::/96")
)

// embeddedIPv4 returns the IPv4 address an IPv6 address carries by a
// standard transition mechanism.
func embeddedIPv4(addr netip.Addr) (netip.Addr, bool) {
	if !addr.Is6() {
		return netip.Addr{}, false
	}
	b := addr.As16()
	switch {
	case compat.Contains(addr) && addr != netip.IPv6Unspecified() && addr != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case nat64.Contains(addr), nat64Priv.Contains(addr):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(addr):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	case teredo.Contains(addr):
		return netip.AddrFrom4([4]byte{b[12] ^ 0xff, b[13] ^ 0xff, b[14] ^ 0xff, b[15] ^ 0xff}), true
	}
	return netip.Addr{}, false
}

// FormatBytes renders n in the largest binary unit that divides it evenly
// (4 MiB, 512 KiB), else in bytes.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
