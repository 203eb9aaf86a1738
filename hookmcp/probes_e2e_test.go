package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestReadyz runs the built binary over HTTP with a bearer token required:
// /readyz answers without the token, 200 while the capture API answers
// (any status below 500) and 503 once it answers 5xx; its probe is a GET
// of the API's base URL that carries no API key. /healthz stays 200.
func TestReadyz(t *testing.T) {
	const key = "0f8fad5b-d9cb-469f-a165-70867728950e"
	var mu sync.Mutex
	var seen []string
	status := http.StatusNotFound
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var headers strings.Builder
		_ = r.Header.Write(&headers)
		seen = append(seen, r.Method+" "+r.URL.String()+" "+headers.String())
		w.WriteHeader(status)
	}))
	defer api.Close()
	start := func() string {
		cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--socket-url", "off")
		cmd.Env = append(os.Environ(), "HOOKSVC_HTTP_TOKEN=0123456789abcdef0123", "HOOKSVC_API_KEY="+key, "HOOKSVC_API_URL="+api.URL)
		base := strings.TrimSuffix(mcptest.StartHTTP(t, cmd), "/mcp")
		t.Cleanup(func() { mcptest.Stop(t, cmd) })
		return base
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

	base := start()
	if code, body := get(base + "/readyz"); code != http.StatusOK || body != "ready\n" {
		t.Errorf("API answering 404: /readyz %d %q, want 200 ready", code, body)
	}
	mu.Lock()
	if len(seen) != 1 || !strings.HasPrefix(seen[0], "GET / ") || strings.Contains(seen[0], key) {
		t.Errorf("the API saw %q, want one GET / without the API key", seen)
	}
	status = http.StatusBadGateway
	mu.Unlock()
	// A second server: the first holds its answer for a few seconds.
	base = start()
	if code, body := get(base + "/readyz"); code != http.StatusServiceUnavailable || body != "not ready\n" {
		t.Errorf("API answering 502: /readyz %d %q, want 503 not ready", code, body)
	}
	if code, body := get(base + "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz %d %q, want 200 ok", code, body)
	}
}
