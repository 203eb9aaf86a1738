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
// /readyz answers without the token, 200 while the endpoint answers (a 401
// included: reachable) and 503 once it answers 5xx; its probe is a POST of
// { __typename } that carries none of the GRAPHQL_HEADERS credentials.
// /healthz stays 200 either way.
func TestReadyz(t *testing.T) {
	const secret = "Bearer readyz-secret-0123456789"
	var mu sync.Mutex
	var seen []string
	status := http.StatusUnauthorized
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Method+" "+string(body)+" auth="+r.Header.Get("Authorization"))
		w.WriteHeader(status)
	}))
	defer endpoint.Close()
	start := func() string {
		cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", endpoint.URL)
		cmd.Env = append(os.Environ(), "GRAPHQL_HTTP_TOKEN=0123456789abcdef0123", `GRAPHQL_HEADERS={"Authorization": "`+secret+`"}`)
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
		t.Errorf("endpoint answering 401: /readyz %d %q, want 200 ready", code, body)
	}
	mu.Lock()
	if len(seen) != 1 || seen[0] != `POST {"query":"{ __typename }"} auth=` {
		t.Errorf("the endpoint saw %q, want one POST of { __typename } with no Authorization", seen)
	}
	status = http.StatusServiceUnavailable
	mu.Unlock()
	// A second server: the first holds its answer for a few seconds.
	base = start()
	if code, body := get(base + "/readyz"); code != http.StatusServiceUnavailable || body != "not ready\n" {
		t.Errorf("endpoint answering 503: /readyz %d %q, want 503 not ready", code, body)
	}
	if code, body := get(base + "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz %d %q, want 200 ok", code, body)
	}
}
