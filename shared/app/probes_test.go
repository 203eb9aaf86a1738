package app

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/httpx"
)

// probe asks handler for path and returns the status and body.
func probe(handler http.Handler, path string) (int, string) {
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

// TestReadyzCachedAndBounded: /readyz runs the server's check at most once
// per readyCacheFor however many probes come, the probes that arrive during
// a check share it, a check that hangs is cut at readyCheckWait and counts
// as not ready, and the answer says ready or not ready and nothing of the
// reason, which is logged once per change. Time is synctest's.
func TestReadyzCachedAndBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		ready := NewReadiness(slog.New(slog.NewTextHandler(&logs, nil)))
		mux := http.NewServeMux()
		addProbes(mux, ready)
		if code, body := probe(mux, "/readyz"); code != http.StatusOK || body != "ready\n" {
			t.Errorf("with no check: %d %q, want 200 ready", code, body)
		}

		var checks atomic.Int32
		var failing, hanging atomic.Bool
		ready.Set(func(ctx context.Context) error {
			checks.Add(1)
			time.Sleep(100 * time.Millisecond)
			if hanging.Load() {
				<-ctx.Done()
				return ctx.Err()
			}
			if failing.Load() {
				return errors.New("dial tcp: connection refused to internal-host-7")
			}
			return nil
		})
		// Three probes at once: one check.
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if code, body := probe(mux, "/readyz"); code != http.StatusOK || body != "ready\n" {
					t.Errorf("upstream up: %d %q, want 200 ready", code, body)
				}
			})
		}
		wg.Wait()
		if n := checks.Load(); n != 1 {
			t.Errorf("three probes at once ran %d checks, want 1", n)
		}
		failing.Store(true)
		time.Sleep(readyCacheFor - time.Second)
		if code, _ := probe(mux, "/readyz"); code != http.StatusOK || checks.Load() != 1 {
			t.Errorf("within the cache: %d after %d checks, want the cached 200 after 1", code, checks.Load())
		}
		time.Sleep(time.Second)
		code, body := probe(mux, "/readyz")
		if code != http.StatusServiceUnavailable || body != "not ready\n" || checks.Load() != 2 {
			t.Errorf("upstream down, cache expired: %d %q after %d checks, want 503 \"not ready\" after 2", code, body, checks.Load())
		}

		hanging.Store(true)
		time.Sleep(readyCacheFor)
		start := time.Now()
		if code, _ := probe(mux, "/readyz"); code != http.StatusServiceUnavailable {
			t.Errorf("a hanging check: %d, want 503", code)
		}
		if waited := time.Since(start); waited != readyCheckWait {
			t.Errorf("a hanging check held the probe %s, want %s", waited, readyCheckWait)
		}
		if n := strings.Count(logs.String(), "not ready"); n != 1 || !strings.Contains(logs.String(), "connection refused") {
			t.Errorf("want one log line saying why the server is not ready, got %d: %s", n, logs.String())
		}
		if code, body := probe(mux, "/healthz"); code != http.StatusOK || body != "ok\n" {
			t.Errorf("/healthz: %d %q, want 200 ok whatever the upstream", code, body)
		}
	})
}

// TestReadyzNeedsNoToken: over the real HTTP transport, with a bearer token
// required on /mcp, the probes answer without one; a check by
// UpstreamCheck counts a 4xx as the upstream reachable and a 5xx or a
// closed port as not.
func TestReadyzNeedsNoToken(t *testing.T) {
	var status atomic.Int32
	status.Store(http.StatusUnauthorized)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(int(status.Load()))
	}))
	defer upstream.Close()
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	caller := &httpx.Caller{HTTP: upstream.Client(), Logger: discard}
	check := func(target string) func(context.Context) error {
		u, _ := url.Parse(target)
		return UpstreamCheck(caller, func() httpx.Outbound { return httpx.Outbound{Method: http.MethodGet, URL: u} })
	}
	serve := func(c func(context.Context) error) string {
		ready := NewReadiness(discard)
		ready.Set(c)
		listener, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		go func() {
			done <- serveMCP(ctx, listener, server, httpAccess{token: "0123456789abcdef0123", ready: ready}, discard, time.Second)
		}()
		t.Cleanup(func() { cancel(); <-done })
		return "http://" + listener.Addr().String()
	}
	get := func(u string) (int, string) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}

	base := serve(check(upstream.URL))
	if code, body := get(base + "/readyz"); code != http.StatusOK || body != "ready\n" {
		t.Errorf("upstream answering 401, no token: %d %q, want 200 ready", code, body)
	}
	if code, _ := get(base + "/mcp"); code != http.StatusUnauthorized {
		t.Errorf("/mcp without the token: %d, want 401 (the probes are the only way in)", code)
	}
	status.Store(http.StatusBadGateway)
	if code, body := get(serve(check(upstream.URL)) + "/readyz"); code != http.StatusServiceUnavailable || body != "not ready\n" {
		t.Errorf("upstream answering 502: %d %q, want 503 not ready", code, body)
	}
	if code, _ := get(serve(check("http://"+closedAddr(t))) + "/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("upstream port closed: %d, want 503", code)
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := listener.Addr().String()
	listener.Close()
	return addr
}
