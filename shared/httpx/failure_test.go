package httpx

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpforge/servers/shared/redact"
)

// closedPort returns a loopback address nothing listens on: a port just
// released by a listener of this test.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestFailureKinds: every way an exchange can get no answer, met on
// loopback, comes back as a *Failure of its kind whose text names what
// happened and what to check, and never the URL's query (a secret here).
func TestFailureKinds(t *testing.T) {
	const secret = "s3cret-query-value"
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(plain.Close)
	untrusted := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(untrusted.Close)
	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(hangup.Close)
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) }) // before Close, which waits for the handler
	refused := closedPort(t)

	tests := []struct {
		name    string
		url     string
		timeout time.Duration
		kind    FailureKind
		want    []string
	}{
		{"closed port", "http://" + refused + "/graphql", 0, Refused,
			[]string{"the connection to " + refused + " was refused: no server is listening there", "Check the URL's host and port, and that the server is running"}},
		{"no such host", "http://no-such-host.invalid/graphql", 0, NoSuchHost,
			[]string{`the host name "no-such-host.invalid"`, "Check the URL's host name"}},
		{"https to a plain HTTP server", strings.Replace(plain.URL, "http://", "https://", 1), 0, NotTLS,
			[]string{"answered in plain HTTP, not HTTPS: use an http:// URL"}},
		{"untrusted certificate", untrusted.URL, 0, BadCertificate,
			[]string{"the TLS certificate of " + strings.TrimPrefix(untrusted.URL, "https://") + " is not trusted", "SSL_CERT_FILE"}},
		{"connection closed", hangup.URL, 0, ClosedEarly,
			[]string{"closed the connection without an HTTP answer", "Check the URL's port and scheme"}},
		{"own deadline", hang.URL, 50 * time.Millisecond, TimedOut, []string{"timed out after 50 ms"}},
	}
	caller := &Caller{HTTP: NewClient(Options{}), Logger: slog.New(slog.DiscardHandler)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.Parse(tt.url + "?key=" + secret)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			_, err = caller.Do(ctx, Outbound{Method: http.MethodGet, URL: u, Redactor: redact.New(secret)})
			f := AsFailure(err)
			if f == nil {
				t.Fatalf("error %v (%T), want a *Failure", err, err)
			}
			if f.Kind != tt.kind {
				t.Errorf("kind %d, want %d: %s", f.Kind, tt.kind, f.Reason)
			}
			for _, want := range tt.want {
				if !strings.Contains(f.Reason, want) {
					t.Errorf("%q lacks %q", f.Reason, want)
				}
			}
			if strings.Contains(f.Reason, secret) {
				t.Errorf("the query's secret shows: %s", f.Reason)
			}
			if tt.kind == TimedOut && f.After != tt.timeout {
				t.Errorf("After = %v, want %v", f.After, tt.timeout)
			}
		})
	}
}
