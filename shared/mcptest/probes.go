package mcptest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

// ProbeRequest is a request a server's readiness probe sent upstream, as
// the upstream saw it.
type ProbeRequest struct {
	Method string
	URI    string // the request line's target: path and query
	Header http.Header
	Body   string
}

// Readiness is what CheckReadyz needs of one server.
type Readiness struct {
	// Command is the built binary serving HTTP on a loopback port with a
	// bearer token required, its upstream (the GraphQL endpoint, the
	// capture API) at upstream, and its credential for it set (Secret).
	Command func(upstream string) *exec.Cmd
	// Secret is the credential the server holds for its upstream, which
	// a probe must never carry.
	Secret string
	// Up is a status below 500 that the upstream answers first (one a
	// server could mistake for down: 401, 404); Down is a 5xx.
	Up, Down int
	// CheckProbe checks the one request the first probe sent: what the
	// server asks its upstream to learn it answers.
	CheckProbe func(t *testing.T, probe ProbeRequest)
}

// CheckReadyz runs r's binary over HTTP: /readyz answers without the
// bearer token, 200 "ready" while the upstream answers r.Up, and 503 "not
// ready" once it answers r.Down; its probe is one request that holds
// r.Secret nowhere; /healthz stays 200 "ok" either way.
func CheckReadyz(t *testing.T, r Readiness) {
	t.Helper()
	var mu sync.Mutex
	var seen []ProbeRequest
	status := r.Up
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, ProbeRequest{Method: req.Method, URI: req.URL.String(), Header: req.Header.Clone(), Body: string(body)})
		w.WriteHeader(status)
	}))
	defer upstream.Close()
	start := func() string {
		cmd := r.Command(upstream.URL)
		base := strings.TrimSuffix(StartHTTP(t, cmd), "/mcp")
		t.Cleanup(func() { Stop(t, cmd) })
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
		t.Errorf("upstream answering %d: /readyz %d %q, want 200 ready", r.Up, code, body)
	}
	mu.Lock()
	probes := slices.Clone(seen)
	status = r.Down
	mu.Unlock()
	if len(probes) != 1 {
		t.Errorf("the upstream saw %d requests, want one probe: %+v", len(probes), probes)
	} else {
		var headers strings.Builder
		_ = probes[0].Header.Write(&headers)
		if r.Secret != "" && strings.Contains(probes[0].URI+"\n"+headers.String()+"\n"+probes[0].Body, r.Secret) {
			t.Errorf("the probe carried the server's credential: %+v", probes[0])
		}
		r.CheckProbe(t, probes[0])
	}
	// A second server: the first holds its answer for a few seconds.
	base = start()
	if code, body := get(base + "/readyz"); code != http.StatusServiceUnavailable || body != "not ready\n" {
		t.Errorf("upstream answering %d: /readyz %d %q, want 503 not ready", r.Down, code, body)
	}
	if code, body := get(base + "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz %d %q, want 200 ok", code, body)
	}
}
