package tools

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// Keys the fake accepts. envKey plays HOOKSVC_API_KEY where a test sets it.
const (
	envKey  = "env-key-0123456789"
	callKey = "call-key-9876543210"
)

// harness is a hookmcp server connected to a test client in memory, talking
// to a fake capture API on loopback.
type harness struct {
	session *mcp.ClientSession
	fake    *fakehooksvc.Server
	url     string // the fake's base URL
	logs    *mcptest.SyncBuffer

	mu    sync.Mutex
	waits []time.Duration // retry waits the client asked for
}

// connect starts a fake and a server configured by cfg (APIURL and Timeout
// filled in when unset).
func connect(t *testing.T, cfg config.Config) *harness {
	t.Helper()
	return connectFake(t, fakehooksvc.Options{}, cfg)
}

// connectFake is connect with a fake configured by opts (its keys set when
// opts has none).
func connectFake(t testing.TB, opts fakehooksvc.Options, cfg config.Config) *harness {
	t.Helper()
	if opts.APIKeys == nil {
		opts.APIKeys = []string{envKey, callKey}
	}
	fake := fakehooksvc.New(opts)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	return serve(t, fake, srv.URL, cfg)
}

// reconnect starts another server, configured by cfg, on h's fake.
func (h *harness) reconnect(t *testing.T, cfg config.Config) *harness {
	t.Helper()
	return serve(t, h.fake, h.url, cfg)
}

func serve(t testing.TB, fake *fakehooksvc.Server, baseURL string, cfg config.Config) *harness {
	t.Helper()
	return serveWith(t, fake, baseURL, cfg, nil)
}

// serveWith is serve with the test client's options.
func serveWith(t testing.TB, fake *fakehooksvc.Server, baseURL string, cfg config.Config, client *mcp.ClientOptions) *harness {
	t.Helper()
	if cfg.APIURL == nil {
		cfg.APIURL, _ = url.Parse(baseURL)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	h := &harness{fake: fake, url: baseURL, logs: &mcptest.SyncBuffer{}}
	server := NewServer(Options{
		Config:  cfg,
		HTTP:    NewHTTPClient("hookmcp-test"),
		Logger:  slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version: "test",
		Sleep: func(ctx context.Context, d time.Duration) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.waits = append(h.waits, d)
			return ctx.Err()
		},
	})
	h.session = mcptest.ConnectWith(t, server, client)
	return h
}

func (h *harness) call(t testing.TB, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return mcptest.Call(t, context.Background(), h.session, tool, args)
}

// ok calls a tool that must succeed and returns its structured content.
func (h *harness) ok(t testing.TB, tool string, args map[string]any) map[string]any {
	t.Helper()
	res := h.call(t, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", tool, args, mcptest.Text(res))
	}
	return mcptest.Structured(t, res)
}

// waitBody runs a one-second wait_for_request on token id, which must
// succeed, and returns the body it returned ("" when none was captured).
func (h *harness) waitBody(t testing.TB, id string) any {
	t.Helper()
	return h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 1})["body"]
}

// failure calls a tool that must fail and returns its error text.
func (h *harness) failure(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	res := h.call(t, tool, args)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded, want a tool error: %s", tool, args, mcptest.Text(res))
	}
	return mcptest.Text(res)
}

// createToken makes a token through the tool and returns its UUID.
func (h *harness) createToken(t testing.TB, args map[string]any) string {
	t.Helper()
	out := h.ok(t, "create_token", args)
	return out["token"].(map[string]any)["uuid"].(string)
}

// capture sends a request to a token's capture URL.
func (h *harness) capture(t testing.TB, id, method, contentType, body string) {
	t.Helper()
	req, err := http.NewRequest(method, h.url+"/"+id, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		t.Fatalf("capture to %s: HTTP %d", id, resp.StatusCode)
	}
}

// apiCalls returns what reached the fake's API (not its capture URLs) since
// the last reset, as "METHOD path".
func (h *harness) apiCalls() []string {
	var out []string
	for _, r := range h.fake.Received() {
		if strings.HasPrefix(r.Path, "/token") {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// last returns the last API request the fake received.
func (h *harness) last(t *testing.T) fakehooksvc.Received {
	t.Helper()
	received := h.fake.Received()
	for i := len(received) - 1; i >= 0; i-- {
		if strings.HasPrefix(received[i].Path, "/token") {
			return received[i]
		}
	}
	t.Fatal("the fake received no API request")
	return fakehooksvc.Received{}
}

func (h *harness) recordedWaits() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Duration(nil), h.waits...)
}

func contains(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("%q\ndoes not contain %q", got, want)
		}
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
