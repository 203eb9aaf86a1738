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

// dialTimeout is the error a dial that got no answer gives.
type dialTimeout struct{}

func (dialTimeout) Error() string   { return "i/o timeout" }
func (dialTimeout) Timeout() bool   { return true }
func (dialTimeout) Temporary() bool { return true }

// TestTimeoutKinds: only a connection that timed out is said to be a
// connection problem; a server that accepted the connection and did not
// answer, and a caller's own deadline (a tool's wait limit), are said as
// what they are, never as "any firewall".
func TestTimeoutKinds(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	u, _ := url.Parse(hang.URL)
	host := u.Host
	logger := slog.New(slog.DiscardHandler)
	tests := []struct {
		name      string
		transport *http.Transport
		deadline  time.Duration // a plain context deadline, the caller's own
		kind      FailureKind
		want      string
	}{
		{"dial timeout", &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: dialTimeout{}}
		}}, 0, Unreachable, "connecting to " + host + " took too long (no answer to the connection). Check the URL's host and port, and any firewall between"},
		{"no answer after connecting", &http.Transport{ResponseHeaderTimeout: 20 * time.Millisecond}, 0, NoAnswer,
			host + " accepted the connection but did not answer in time"},
		{"caller's deadline", &http.Transport{}, 50 * time.Millisecond, DeadlinePassed, "no answer came within "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caller := &Caller{HTTP: &http.Client{Transport: tt.transport}, Logger: logger}
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			_, err := caller.Do(ctx, Outbound{Method: http.MethodGet, URL: u})
			f := AsFailure(err)
			if f == nil {
				t.Fatalf("error %v (%T), want a *Failure", err, err)
			}
			if f.Kind != tt.kind || !strings.Contains(f.Reason, tt.want) {
				t.Errorf("kind %d %q, want %d containing %q", f.Kind, f.Reason, tt.kind, tt.want)
			}
			if tt.kind != Unreachable && strings.Contains(f.Reason, "firewall") {
				t.Errorf("a late answer is said as a connection problem: %s", f.Reason)
			}
			if tt.kind == DeadlinePassed && f.After < tt.deadline {
				t.Errorf("After = %v, want at least %v", f.After, tt.deadline)
			}
		})
	}
}
