// Package httpx is the outbound HTTP both servers use to reach their upstream
// APIs: a client with bounded connection set-up, no redirects unless a
// policy is given, and a User-Agent that names the server and its version;
// and the Caller, through which every request goes out and its answer comes
// in bounded and cleaned of secrets.
package httpx

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Options configure NewClient.
type Options struct {
	// UserAgent is sent on every request that does not set its own.
	UserAgent string
	// DialControl, when set, runs on every address about to be dialled,
	// after DNS resolution; its error refuses the connection.
	DialControl func(ctx context.Context, network, address string, c syscall.RawConn) error
	// CheckRedirect, when set, is the redirect policy, as http.Client's.
	// When nil, no redirect is followed: a 3xx answer is handed back as it
	// is.
	CheckRedirect func(req *http.Request, via []*http.Request) error
}

// NewClient returns an HTTP client configured by opts. It sets no overall
// timeout: each request carries its own deadline in its context (see
// WithTimeout), so that a caller's choice of timeout is honoured exactly.
func NewClient(opts Options) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, ControlContext: opts.DialControl}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	client := &http.Client{Transport: userAgentTransport{next: transport, userAgent: opts.UserAgent}, CheckRedirect: opts.CheckRedirect}
	if client.CheckRedirect == nil {
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return client
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
// growing by copies (a 5 MB schema would be copied about ten times).
func readLimited(r io.Reader, limit, size int64) ([]byte, error) {
	r = io.LimitReader(r, limit+1)
	var body []byte
	var err error
	if size >= 0 && size <= limit {
		var buf bytes.Buffer
		buf.Grow(int(size) + 1) // the 1 lets ReadFrom see the end without growing
		_, err = buf.ReadFrom(r)
		body = buf.Bytes()
	} else {
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
