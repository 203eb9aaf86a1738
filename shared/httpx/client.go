// Package httpx builds the outbound HTTP client that both servers use to reach
// their upstream APIs: bounded connection set-up, an explicit redirect policy,
// a guard against link-local (cloud metadata) addresses, a capped response
// reader and a User-Agent that names the server and its version.
package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Options configure NewClient.
type Options struct {
	// UserAgent is sent on every request that does not set its own.
	UserAgent string
	// FollowRedirects makes the client follow up to 10 redirects. When false,
	// a 3xx answer is handed back to the caller as it is.
	FollowRedirects bool
	// KeepAcrossOrigins names the headers that survive a redirect to another
	// origin; every other header is dropped on such a hop, so credentials meant
	// for one API never reach another. Accept, Content-Type and User-Agent are
	// always kept.
	KeepAcrossOrigins []string
	// BlockLinkLocal refuses connections to link-local addresses (169.254.0.0/16,
	// fe80::/10) and known cloud metadata addresses, after DNS resolution, unless
	// the request's context carries a Gate (WithGate) that allowed the URL
	// being fetched.
	BlockLinkLocal bool
}

// ErrLinkLocal is returned when a connection to a link-local or metadata
// address was refused.
var ErrLinkLocal = errors.New("link-local and cloud metadata addresses are refused")

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

// NewClient returns an HTTP client configured by opts. It sets no overall
// timeout: each request carries its own deadline in its context (see
// WithTimeout), so that a caller's choice of timeout is honoured exactly.
func NewClient(opts Options) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if opts.BlockLinkLocal {
		dialer.ControlContext = guardLinkLocal
	}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	client := &http.Client{Transport: userAgentTransport{next: transport, userAgent: opts.UserAgent}}
	if !opts.FollowRedirects {
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		return client
	}
	keep := map[string]bool{"Accept": true, "Content-Type": true, "User-Agent": true}
	for _, name := range opts.KeepAcrossOrigins {
		keep[http.CanonicalHeaderKey(name)] = true
	}
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if state := gateFrom(req.Context()); state != nil {
			allowed, err := state.judge(req.URL)
			if err != nil {
				return fmt.Errorf("the endpoint redirected to a URL that is refused: %w", err)
			}
			state.linkLocal.Store(allowed)
		}
		if Origin(req.URL) != Origin(via[0].URL) {
			for name := range req.Header {
				if !keep[name] {
					req.Header.Del(name)
				}
			}
		}
		return nil
	}
	return client
}

// guardLinkLocal runs after DNS resolution and before the connection is
// made, on the address actually dialled, so a name that resolves to a
// metadata address is caught too.
func guardLinkLocal(ctx context.Context, _, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if addr, ok := parseHostAddr(host); ok && isLinkLocalAddr(addr) && !linkLocalAllowed(ctx) {
		return ErrLinkLocal
	}
	return nil
}

type userAgentTransport struct {
	next      http.RoundTripper
	userAgent string
}

func (t userAgentTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.userAgent != "" && req.Header.Get("User-Agent") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("User-Agent", t.userAgent)
	}
	return t.next.RoundTrip(req)
}

// Origin returns scheme://host:port of u, with the default port made explicit,
// so that two URLs of the same origin compare equal.
func Origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// DisplayURL renders u for messages: scheme, host and path only, because a
// query string or user info may carry a credential.
func DisplayURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
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
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
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

// TooLargeError reports a response body that exceeded the read limit.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("response body exceeds the %s limit", FormatBytes(e.Limit))
}

// ReadLimited reads r to the end, or fails with a *TooLargeError as soon as
// more than limit bytes arrive, so a huge answer never sits in memory whole.
func ReadLimited(r io.Reader, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return body, err
	}
	if int64(len(body)) > limit {
		return body[:limit], &TooLargeError{Limit: limit}
	}
	return body, nil
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

// TimeoutError reports that a request's own deadline fired.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("timed out after %d ms", e.After.Milliseconds())
}

// WithTimeout bounds ctx by d. When d fires, Explain turns the resulting error
// into a *TimeoutError that says how long was waited.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, &TimeoutError{After: d})
}

// ErrCanceled reports that the caller gave up on the request.
var ErrCanceled = errors.New("the request was cancelled by the client")

// Explain rewrites err, returned by a request made under ctx, into the reason
// the caller needs: the timeout that fired, a cancellation, or the transport
// failure without the URL wrapper (whose query string may hold a secret).
func Explain(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil {
		var timeout *TimeoutError
		if errors.As(cause, &timeout) {
			return timeout
		}
		if errors.Is(cause, context.Canceled) {
			return ErrCanceled
		}
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err
	}
	return err
}

// Snippet returns at most n bytes of body as text for an error message,
// trimmed, with an ellipsis when it was cut.
func Snippet(body []byte, n int) string {
	text := strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && !utf8RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
