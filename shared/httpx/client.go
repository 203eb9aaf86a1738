// Package httpx is the outbound HTTP both servers use to reach their upstream
// APIs: a client with bounded connection set-up, no redirects unless a
// policy is given, and a User-Agent that names the server and its version;
// and the Caller, through which every request goes out and its answer comes
// in bounded and cleaned of secrets.
package httpx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Options configure NewClient.
type Options struct {
	// UserAgent is sent on every request that does not set its own.
	UserAgent string
	// Guard, when set, gives the rule that the IP addresses of a request's
	// target must pass, for the request whose context it is given; nil
	// lets that request reach any address. Every address the target's name
	// resolves to is checked, before a connection is made or a proxy is
	// asked, and one refused address refuses the request.
	Guard func(ctx context.Context) AddressRule
	// CheckRedirect, when set, is the redirect policy, as http.Client's.
	// When nil, no redirect is followed: a 3xx answer is handed back as it
	// is.
	CheckRedirect func(req *http.Request, via []*http.Request) error
	// Proxy picks a request's proxy, as http.Transport's Proxy does; nil
	// is http.ProxyFromEnvironment (HTTP_PROXY, HTTPS_PROXY, NO_PROXY).
	Proxy func(*http.Request) (*url.URL, error)
	// Resolver looks names up; nil is the system's. Tests inject one.
	Resolver Resolver
}

// AddressRule judges an address a request would reach; its error refuses
// the request, and says why in words (it is shown as the reason).
type AddressRule func(netip.Addr) error

// Resolver looks up the IP addresses of a host name, as net.Resolver does.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// MaxResponseHeaderBytes bounds the headers of any answer either server
// reads.
const MaxResponseHeaderBytes = 64 << 10

// NewClient returns an HTTP client configured by opts. It sets no overall
// timeout: each request carries its own deadline in its context (see
// WithTimeout), so that a caller's choice of timeout is honoured exactly.
//
// Every request goes to its host's canonical form (CanonicalHost), the one
// every decision about hosts compares: the name dialled, sent as Host and
// as the TLS server name is the name that was judged. A request whose host
// has no canonical form is refused.
func NewClient(opts Options) *http.Client {
	dialer := &guardedDialer{
		net:      &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		resolver: opts.Resolver,
		guard:    opts.Guard,
	}
	proxy := opts.Proxy
	if proxy == nil {
		proxy = http.ProxyFromEnvironment
	}
	pooled := &http.Transport{
		Proxy:             dialer.proxyChecked(proxy),
		DialContext:       dialer.DialContext,
		ForceAttemptHTTP2: true,
		MaxIdleConns:      32,
		// A listing read several pages at once (hookmcp reads 4) keeps
		// its connections between pages: at Go's default of 2 idle per
		// host, the connections past 2 were closed after their page and
		// new ones dialled (over TLS, handshakes) for the pages after.
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		// An answer's headers are read whole before any limit on its body
		// applies; Go's default allows 10 MB of them.
		MaxResponseHeaderBytes: MaxResponseHeaderBytes,
	}
	var next http.RoundTripper = pooled
	if opts.Guard != nil {
		// A Transport's pool is keyed by host and port, not by the rule a
		// connection was dialled under: a request whose rule refuses an
		// address would reuse a connection that a request allowed to
		// reach it dialled, and no dial, so no check, would happen. A rule
		// is a function, which has no identity to key a pool by; so a
		// request under a rule gets a connection of its own, dialled and
		// checked for it and closed after it (HTTP/2 too: a single-use
		// connection), and only requests under no rule share the pool.
		unpooled := pooled.Clone()
		unpooled.DisableKeepAlives = true
		next = byRule{guard: opts.Guard, unguarded: pooled, guarded: unpooled}
	}
	client := &http.Client{Transport: outboundTransport{next: next, userAgent: opts.UserAgent}, CheckRedirect: opts.CheckRedirect}
	if client.CheckRedirect == nil {
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return client
}

// outboundTransport sends each request (and each redirect hop, which comes
// through here too) to its canonical host, with the User-Agent.
type outboundTransport struct {
	next      http.RoundTripper
	userAgent string
}

func (t outboundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	u, err := CanonicalURL(req.URL)
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, &HostError{Err: err}
	}
	setUA := t.userAgent != "" && req.Header.Get("User-Agent") == ""
	if u != req.URL || setUA || (req.Host != "" && req.Host != u.Host) {
		req = req.Clone(req.Context())
		req.URL = u
		// A Host set apart from the URL would be a second name, unjudged.
		req.Host = ""
		if setUA {
			req.Header.Set("User-Agent", t.userAgent)
		}
	}
	return t.next.RoundTrip(req)
}

// byRule sends a request under an address rule through a transport that
// keeps no connection (guarded), and one under none through the pool
// (unguarded). The rule is read from the request's context as the dialer
// reads it, at the same hop: a redirect hop's rule is settled before its
// round trip begins.
type byRule struct {
	guard              func(context.Context) AddressRule
	unguarded, guarded *http.Transport
}

func (t byRule) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.guard(req.Context()) != nil {
		return t.guarded.RoundTrip(req)
	}
	return t.unguarded.RoundTrip(req)
}

func (t byRule) CloseIdleConnections() {
	t.unguarded.CloseIdleConnections()
	t.guarded.CloseIdleConnections()
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// transports below.
func (t outboundTransport) CloseIdleConnections() {
	if closer, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		closer.CloseIdleConnections()
	}
}

// HostError refuses a URL whose host has no canonical form.
type HostError struct{ Err error }

func (e *HostError) Error() string { return "the URL's host is refused: " + e.Err.Error() }
func (e *HostError) Unwrap() error { return e.Err }

// AddressError refuses a request whose target resolves to an address its
// rule refuses, or, when it is checked before a proxy, does not resolve.
type AddressError struct {
	Host string // the name, as dialled
	Addr netip.Addr
	Err  error
}

func (e *AddressError) Error() string {
	if !e.Addr.IsValid() {
		return e.Err.Error()
	}
	if addr, err := netip.ParseAddr(e.Host); err == nil && addr == e.Addr {
		return fmt.Sprintf("the address %s is refused: %v", e.Addr, e.Err)
	}
	return fmt.Sprintf("the host %s resolves to %s, which is refused: %v", quoteHost(e.Host), e.Addr, e.Err)
}

func (e *AddressError) Unwrap() error { return e.Err }

// guardedDialer resolves and checks a target before anything is sent
// towards it: every address its name has must pass the request's rule.
type guardedDialer struct {
	net *net.Dialer
	// resolver, when set (tests), is the only source of addresses: the
	// addresses it gives are checked and dialled, one after another.
	resolver Resolver
	guard    func(context.Context) AddressRule
}

func (d *guardedDialer) rule(ctx context.Context) AddressRule {
	if d.guard == nil {
		return nil
	}
	return d.guard(ctx)
}

func (d *guardedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	rule := d.rule(ctx)
	if rule == nil && d.resolver == nil {
		return d.net.DialContext(ctx, network, address)
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := d.checked(ctx, ipNetwork(network), host, rule)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	if d.resolver != nil {
		var first error
		for _, addr := range addrs {
			conn, err := d.net.DialContext(ctx, network, net.JoinHostPort(addr.String(), port))
			if err == nil {
				return conn, nil
			}
			if first == nil {
				first = err
			}
		}
		return nil, first
	}
	// Go's dialer resolves the name again, and races IPv4 against IPv6
	// as a dual-stack client should. Each address it dials is checked
	// once more as it is dialled, so an answer that changed in between
	// (DNS rebinding) reaches nothing unchecked.
	dialer := *d.net
	dialer.ControlContext = func(_ context.Context, _, dialled string, _ syscall.RawConn) error {
		return checkDialled(host, dialled, rule)
	}
	return dialer.DialContext(ctx, network, address)
}

// checkDialled applies rule to the address about to be dialled for host.
func checkDialled(host, dialled string, rule AddressRule) error {
	ip, _, err := net.SplitHostPort(dialled)
	if err != nil {
		return err
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return err
	}
	if err := rule(addr); err != nil {
		return &AddressError{Host: host, Addr: addr, Err: err}
	}
	return nil
}

// proxyChecked wraps proxy: a request that goes through a proxy is
// resolved and checked here first, since the proxy resolves the name
// itself and this process dials only the proxy. A name that does not
// resolve here is refused: it could not be checked.
func (d *guardedDialer) proxyChecked(proxy func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(req *http.Request) (*url.URL, error) {
		via, err := proxy(req)
		if err != nil || via == nil {
			return via, err
		}
		rule := d.rule(req.Context())
		if rule == nil {
			return via, nil
		}
		host := req.URL.Hostname()
		_, err = d.checked(req.Context(), "ip", host, rule)
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) {
			return nil, &AddressError{Host: host, Err: fmt.Errorf("the host name %s does not resolve on this machine (%s), and a request sent through "+
				"the proxy (HTTP_PROXY, HTTPS_PROXY) is checked here first, by the addresses its name has, so it was not sent", quoteHost(host), dnsErr.Err)}
		}
		if err != nil {
			return nil, err
		}
		return via, nil
	}
}

// checked resolves host and checks every address by rule (none when rule
// is nil), returning them.
func (d *guardedDialer) checked(ctx context.Context, network, host string, rule AddressRule) ([]netip.Addr, error) {
	var addrs []netip.Addr
	if addr, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{addr}
	} else {
		resolver := d.resolver
		if resolver == nil {
			resolver = net.DefaultResolver
		}
		found, err := resolver.LookupNetIP(ctx, network, host)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
		addrs = found
	}
	if rule != nil {
		for _, addr := range addrs {
			if err := rule(addr); err != nil {
				return nil, &AddressError{Host: host, Addr: addr, Err: err}
			}
		}
	}
	return addrs, nil
}

// ipNetwork is the lookup network for a dial network: tcp4 looks up IPv4
// addresses only.
func ipNetwork(network string) string {
	switch network {
	case "tcp4", "udp4":
		return "ip4"
	case "tcp6", "udp6":
		return "ip6"
	}
	return "ip"
}

// DisplayURL renders u for messages: scheme, host and path only, because a
// query string or user info may carry a credential.
func DisplayURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// TooLargeError reports a response body that exceeded the read limit.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("response body exceeds the limit of %d bytes", e.Limit)
}

// readLimited reads r to the end, or fails with a *TooLargeError as soon as
// more than limit bytes arrive, so a huge answer never sits in memory whole.
// size is the length the answer announced (Content-Length), or -1: when it
// is within the limit the buffer is made that size at once, instead of
// growing by copies (a 5 MB schema would be copied about ten times). into,
// when it has room, is memory to read into (Outbound.Buffer).
func readLimited(r io.Reader, limit, size int64, into []byte) ([]byte, error) {
	r = io.LimitReader(r, limit+1)
	var body []byte
	var err error
	switch {
	case cap(into) > 0:
		body, err = readInto(r, into[:0], size, limit)
	case size >= 0 && size <= limit:
		var buf bytes.Buffer
		buf.Grow(int(size) + 1) // the 1 lets ReadFrom see the end without growing
		_, err = buf.ReadFrom(r)
		body = buf.Bytes()
	default:
		// Since Go 1.26, ReadAll reads into chunks and copies them once
		// into a slice of the final size: a chunked 5 MB answer is read
		// four times faster than by a growing buffer.
		body, err = io.ReadAll(r)
	}
	if err != nil {
		return body, err
	}
	if int64(len(body)) > limit {
		return body[:limit], &TooLargeError{Limit: limit}
	}
	return body, nil
}

// readInto reads r to the end into buf, which grows by doubling when the
// body does not fit: reused from answer to answer, it soon fits them all.
// A size announced within the limit is made room for at once.
func readInto(r io.Reader, buf []byte, size, limit int64) ([]byte, error) {
	if size >= 0 && size <= limit && int64(cap(buf)) <= size {
		buf = make([]byte, 0, size+1) // the 1 sees the end without growing
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
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
