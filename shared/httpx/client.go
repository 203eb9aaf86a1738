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
	"strings"
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
	// the request's context carries AllowLinkLocal.
	BlockLinkLocal bool
}

// ErrLinkLocal is returned when a connection to a link-local or metadata
// address was refused.
var ErrLinkLocal = errors.New("link-local and cloud metadata addresses are refused")

type allowLinkLocalKey struct{}

// AllowLinkLocal marks ctx so that requests made with it may connect to
// link-local addresses even when the client blocks them.
func AllowLinkLocal(ctx context.Context) context.Context {
	return context.WithValue(ctx, allowLinkLocalKey{}, true)
}

func linkLocalAllowed(ctx context.Context) bool {
	allowed, _ := ctx.Value(allowLinkLocalKey{}).(bool)
	return allowed
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
// made, so a name that resolves to a metadata address is caught too.
func guardLinkLocal(ctx context.Context, _, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if IsLinkLocalHost(host) && !linkLocalAllowed(ctx) {
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

// isMetadataHost reports the cloud metadata services reachable by name or by
// an address outside the link-local ranges.
func isMetadataHost(host string) bool {
	switch host {
	case "metadata", "metadata.google.internal", "metadata.goog",
		"fd00:ec2::254": // AWS IMDS over IPv6
		return true
	}
	return false
}

// IsLinkLocalHost reports whether host (a name or an address, without port) is
// a link-local address or a cloud metadata host.
func IsLinkLocalHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if isMetadataHost(host) {
		return true
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	return addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || isMetadataHost(addr.String())
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
